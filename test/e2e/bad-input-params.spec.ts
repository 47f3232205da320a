import type { TestApp } from '../support/app';
import type { DiscoveredRoute } from '../support/routes';
import { badInputFixture, type Case, INJECTIONS, LONG, neutralPath } from './bad-input-support';
import { call, type Caller } from './users-support';

/**
 * Every console route of the app, found by reflection, gets bad query strings and, where it has path parameters,
 * bad path parameters (injection strings, out-of-range numbers, repeated and bracket parameters, undecodable or
 * over-long values), as root and anonymously where the route is public; bodies are in bad-input.spec.ts. What each
 * answer must be, and what a request may change, is checked by bad-input-support.ts.
 */

/** Query parameter names the console API reads anywhere. */
const QUERY_NAMES = [
  'p',
  'page_size',
  'size',
  'keyword',
  'group',
  'email',
  'code',
  'state',
  'turnstile',
  'token',
  'id',
  'key',
  'model',
  'status_only',
  'username',
  'target_timestamp',
  'id_sort',
  'type',
  'start_timestamp',
  'end_timestamp',
  'token_name',
  'model_name',
  'channel',
  'hash',
  'auth_date',
  'first_name',
  'aff',
];

function queryCases(route: DiscoveredRoute): Case[] {
  const base = neutralPath(route.path);
  const query = (value: string) => QUERY_NAMES.map((name) => `${name}=${encodeURIComponent(value)}`).join('&');
  return [
    ...INJECTIONS.map((text) => ({
      label: `query ${JSON.stringify(text)} in every parameter`,
      path: `${base}?${query(text)}`,
      literal: text,
    })),
    { label: 'query numbers out of range', path: `${base}?${query('99999999999999999999999')}` },
    { label: 'query negative numbers', path: `${base}?${query('-1')}` },
    { label: 'query repeated parameters', path: `${base}?${QUERY_NAMES.map((name) => `${name}=1&${name}=2`).join('&')}` },
    { label: 'query bracket parameters', path: `${base}?${QUERY_NAMES.map((name) => `${name}[a]=1&${name}[]=2`).join('&')}` },
    { label: 'query malformed percent-encoding', path: `${base}?p=%E0%A4%A&keyword=%&email=%zz` },
    ...['p', 'keyword', 'email', 'code', 'state', 'group', 'key', 'id', 'token'].map((name) => ({
      label: `query ${name} 10 000 characters`,
      path: `${base}?${name}=${LONG}`,
      literal: LONG,
    })),
  ];
}

function pathCases(route: DiscoveredRoute): Case[] {
  if (!route.path.includes(':')) return [];
  const encoded = [
    "' OR '1'='1",
    '<script>',
    '../../etc/passwd',
    '\u0000',
    '-1',
    '0',
    '1.5',
    '1e3',
    '0x10',
    '+5',
    ' 1',
    '99999999999999999999',
    'null',
    LONG,
  ];
  // Sent as they are: percent-encoding that does not decode, and an encoded slash.
  const raw = ['%E0%A4%A', '%', '%zz', '..%2F..%2Fetc%2Fpasswd'];
  const label = (value: string) => `path parameter ${value.length > 40 ? `${value.length} characters` : JSON.stringify(value)}`;
  return [
    ...encoded.map((value) => ({ label: label(value), path: route.path.replace(/:[A-Za-z_]+/g, encodeURIComponent(value)) })),
    ...raw.map((value) => ({ label: `${label(value)} (raw)`, path: route.path.replace(/:[A-Za-z_]+/g, value) })),
  ];
}

describe('bad input on every console route: query strings and path parameters', () => {
  const fixture = badInputFixture();
  const { run } = fixture;
  let target: TestApp;
  let root: Caller;

  beforeAll(() => {
    ({ target, root } = fixture.context);
  });

  it('answers bad query strings on every route', async () => {
    expect(await run(queryCases)).toEqual([]);
  }, 240_000);

  it('answers path parameters the router itself refuses (too long, undecodable) like any bad parameter', async () => {
    // Fastify answered these with its own {error, code, statusCode} and HTTP 414/400 before the fix.
    const tooLong = await call(target, root, 'get', `/api/user/${'9'.repeat(10_000)}`);
    expect({ status: tooLong.status, body: tooLong.body }).toEqual({ status: 200, body: { success: false, message: '无效的参数' } });
    const undecodable = await call(target, root, 'delete', '/api/user/%E0%A4%A');
    expect({ status: undecodable.status, body: undecodable.body }).toEqual({
      status: 200,
      body: { success: false, message: '无效的参数' },
    });
  });

  it('answers bad path parameters on every route that has one', async () => {
    expect(await run(pathCases)).toEqual([]);
  }, 120_000);
});
