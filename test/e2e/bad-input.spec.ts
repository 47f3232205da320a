import type request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { discoverRoutes, type DiscoveredRoute } from '../support/routes';
import { call, type Caller, changedRows, projected, rootCaller, tablesFingerprint, tablesSnapshot } from './users-support';

/**
 * Every console route of the app, found by reflection (a route added later is covered without editing this file),
 * gets bad input as root, and anonymously where the route is public: malformed JSON, non-object JSON, wrong types,
 * over-long strings, missing fields, injection strings, in the body, the query string and path parameters.
 *
 * Each answer must be below 500 and in the documented shape: the envelope `{success, message, data?}` with a
 * non-empty message on failure (HTTP 200; 400 for PUT /api/option/ with an undecodable body; 403 for a GitHub
 * OAuth state mismatch), also for a path the router itself refuses (a parameter that does not percent-decode,
 * or one of 10 000 characters; server/src/common/http/framework-errors.ts). A refused request changes nothing. A request that succeeds may
 * only store the text it sent, verbatim, in at most one users row and one options row (an injection string is
 * data: a display name "' OR '1'='1" is a legitimate display name); anything else it changes is a failure.
 */

/** Relay surfaces (OpenAI error envelope, their own specs) and the Prometheus endpoint are not console routes. */
const NOT_CONSOLE = /^\/(v1|pg|mj|suno|metrics|dashboard)(\/|$)/;

/**
 * Routes this test does not call, and why. Everything else is called with every case.
 * - GET /api/user/token mints a new system access token on every call by design (it reads no input at all), so
 *   it changes state on any request; calling it would also revoke the token this test authenticates with.
 */
const EXEMPT = new Map<string, string>([['GET /api/user/token', 'mints a new access token on every call; reads no input']]);

/**
 * Routes that legitimately change state on good-looking input whatever else it holds, and why. Their answers are
 * still checked (no 5xx, the envelope); a success may change their own rows but never users or options.
 * - POST /api/token: every field is optional, as in new-api, so any JSON object (`{}` too) creates a token
 *   with defaults (name "", no quota, never expires); unknown fields are ignored.
 */
const CHANGES_ON_GOOD_LOOKING_INPUT = new Map<string, string>([
  ['POST /api/token', 'every field optional: {} creates a token with defaults'],
]);

/**
 * Calls that legitimately change state the first time and never again, made once before the cases so that the
 * cases see a settled state: the invite code is generated on first read; the model-ratio reset writes the
 * default once.
 */
const WARM_UP: Array<{ method: 'get' | 'post'; path: string }> = [
  { method: 'get', path: '/api/user/aff' },
  { method: 'post', path: '/api/option/rest_model_ratio' },
];

/** Body field names the console API reads anywhere (users, auth, options, accounts, tokens, channels, logs…). */
const FIELDS = [
  'id',
  'username',
  'password',
  'password2',
  'display_name',
  'email',
  'group',
  'quota',
  'role',
  'action',
  'account_revision',
  'key',
  'value',
  'aff_code',
  'verification_code',
  'token',
  'code',
  'name',
  'status',
  'remain_quota',
  'unlimited_quota',
  'expired_time',
  'model_limits_enabled',
  'model_limits',
  'allow_ips',
  'type',
  'base_url',
  'other',
  'models',
  'model_mapping',
  'groups',
  'priority',
  'weight',
  'auto_ban',
  'ids',
  'count',
  'target_timestamp',
  'test_model',
  'tag',
  'setting',
  'config',
];

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

const LONG = 'x'.repeat(10_000);
const INJECTIONS = [
  "' OR '1'='1",
  '1; DROP TABLE users; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'a\u0000b',
  '{{7*7}}${7*7}',
  '%00%27',
];

type Send = (pending: request.Test) => request.Test;

interface Case {
  label: string;
  /** Path to call (path parameters filled). */
  path: string;
  send?: Send;
  /** Text the request carries that a successful call may store verbatim. */
  literal?: string;
}

const fill = (value: unknown) => Object.fromEntries(FIELDS.map((field) => [field, value]));
const json =
  (raw: string): Send =>
  (pending) =>
    pending.set('Content-Type', 'application/json').send(raw);
const body =
  (value: unknown): Send =>
  (pending) =>
    pending.send(value as object);

/** The same path with every `:param` set to a harmless id no row has. */
const neutralPath = (path: string) => path.replace(/:[A-Za-z_]+/g, '987654');
const hasBody = (route: DiscoveredRoute) => route.method !== 'GET' && route.method !== 'HEAD';

function malformedBodies(route: DiscoveredRoute): Case[] {
  const path = neutralPath(route.path);
  return [
    { label: 'truncated JSON {"a":', path, send: json('{"a":') },
    { label: 'JSON with a trailing comma', path, send: json('{"id": 1,}') },
    { label: 'JSON array []', path, send: json('[]') },
    { label: 'JSON array of objects', path, send: json('[{"id":1,"quota":1}]') },
    { label: 'JSON string', path, send: json('"text"') },
    { label: 'JSON number', path, send: json('42') },
    { label: 'JSON null', path, send: json('null') },
    { label: 'empty JSON body', path, send: (pending) => pending.set('Content-Type', 'application/json').send('') },
    { label: 'text/plain body', path, send: (pending) => pending.set('Content-Type', 'text/plain').send('quota=1') },
    { label: 'form body', path, send: (pending) => pending.set('Content-Type', 'application/x-www-form-urlencoded').send('quota=1&id=1') },
    { label: 'deeply nested JSON', path, send: json(`${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`) },
  ];
}

function wrongTypeBodies(route: DiscoveredRoute): Case[] {
  const path = neutralPath(route.path);
  return [
    { label: 'every field a number as a string ("5")', path, send: body(fill('5')) },
    { label: 'every field an object', path, send: body(fill({ a: 1 })) },
    { label: 'every field an array', path, send: body(fill([1, 'a'])) },
    { label: 'every field true', path, send: body(fill(true)) },
    { label: 'every field a number', path, send: body(fill(5)) },
    { label: 'every field a fraction', path, send: body(fill(1.5)) },
    { label: 'every field negative', path, send: body(fill(-5)) },
    { label: 'every field huge (1e308)', path, send: body(fill(1e308)) },
    {
      label: 'every field beyond the safe integers',
      path,
      send: json(`{${FIELDS.map((field) => `"${field}":123456789012345678901234567890`).join(',')}}`),
    },
    { label: 'every field null', path, send: body(fill(null)) },
    { label: 'quota and id as strings, the rest absent', path, send: body({ id: '5', quota: '500000' }) },
    { label: 'prototype keys', path, send: json('{"__proto__":{"role":100},"constructor":{"prototype":{"role":100}}}') },
  ];
}

function missingFieldBodies(route: DiscoveredRoute): Case[] {
  const path = neutralPath(route.path);
  return [
    { label: 'empty object', path, send: body({}) },
    { label: 'no body at all', path },
    { label: 'only unknown fields', path, send: body({ unknown: 'x', other: 1 }) },
  ];
}

function stringBodies(route: DiscoveredRoute): Case[] {
  const path = neutralPath(route.path);
  return [
    { label: 'every field 10 000 characters', path, send: body(fill(LONG)), literal: LONG },
    ...INJECTIONS.map((text) => ({ label: `every field ${JSON.stringify(text)}`, path, send: body(fill(text)), literal: text })),
    // One field at a time: a route that checks an earlier field first must still check this one.
    ...FIELDS.flatMap((field) => [
      { label: `${field} 10 000 characters`, path, send: body({ [field]: LONG }), literal: LONG },
      { label: `${field} with SQL`, path, send: body({ [field]: INJECTIONS[0] }), literal: INJECTIONS[0] },
      { label: `${field} with NUL`, path, send: body({ [field]: INJECTIONS[4] }), literal: INJECTIONS[4] },
    ]),
  ];
}

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

describe('bad input on every console route', () => {
  let target: TestApp;
  let root: Caller;
  let routes: DiscoveredRoute[];
  let state: Record<string, unknown[]>;
  let fingerprint: string;

  beforeAll(async () => {
    target = await createTestApp();
    root = await rootCaller(target);
    for (const warm of WARM_UP) await call(target, root, warm.method, warm.path).expect(200);
    await projected(target);
    routes = discoverRoutes(target.app).filter((route) => !NOT_CONSOLE.test(route.path));
    state = await tablesSnapshot(target);
    fingerprint = await tablesFingerprint(target);
  }, 60_000);
  afterAll(async () => {
    await target.close();
  });

  const routeName = (route: DiscoveredRoute) => `${route.method} ${route.path}`;
  const callable = () => routes.filter((route) => !EXEMPT.has(routeName(route)));

  /** Sends one case as one caller; returns a description of everything wrong with the answer (empty: fine). */
  async function attempt(route: DiscoveredRoute, caller: Caller | null, testCase: Case): Promise<string[]> {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
    let pending = target.http()[method](testCase.path);
    if (caller) pending = pending.set('Authorization', caller.token);
    if (testCase.send) pending = testCase.send(pending);
    const response = await pending;
    const where = `${routeName(route)} as ${caller ? 'root' : 'anonymous'} with ${testCase.label}`;
    const problems: string[] = [];
    const answer = `HTTP ${response.status} ${JSON.stringify(response.body)?.slice(0, 200) ?? response.text?.slice(0, 200)}`;

    if (response.status >= 500) problems.push(`${where}: ${answer}`);
    const envelope = response.body as { success?: unknown; message?: unknown };
    const isEnvelope =
      envelope !== null &&
      typeof envelope === 'object' &&
      typeof envelope.success === 'boolean' &&
      typeof envelope.message === 'string' &&
      Object.keys(envelope).every((key) => ['success', 'message', 'data'].includes(key));
    const isRedirect = response.status === 302; // GET /api/oauth/telegram/bind on success (documented)
    if (!isEnvelope && !isRedirect) problems.push(`${where}: not the documented shape: ${answer}`);
    if (isEnvelope && envelope.success === false && (envelope.message as string).trim() === '')
      problems.push(`${where}: empty message: ${answer}`);
    if (isEnvelope && ![200, 400, 401, 403].includes(response.status)) problems.push(`${where}: undocumented status: ${answer}`);
    if (response.status === 400 && routeName(route) !== 'PUT /api/option')
      problems.push(`${where}: HTTP 400 is documented for PUT /api/option/ only: ${answer}`);

    await projected(target);
    const now = await tablesFingerprint(target);
    if (now === fingerprint) return problems;
    fingerprint = now;
    const after = await tablesSnapshot(target);
    const changes = changedRows(state, after);
    state = after;
    if (Object.keys(changes).length) {
      const succeeded = isEnvelope && envelope.success === true;
      const stored = JSON.stringify(changes);
      const literal = testCase.literal === undefined ? undefined : JSON.stringify(testCase.literal).slice(1, -1);
      const rowsOf = (table: string) => (changes[table] ?? []).filter((row) => !row.startsWith('(')).length;
      const storesLiteral = literal !== undefined && stored.includes(literal) && rowsOf('users') <= 1 && rowsOf('options') <= 1;
      const ownRowsOnly = CHANGES_ON_GOOD_LOOKING_INPUT.has(routeName(route)) && !changes.users && !changes.options;
      const legitimate = succeeded && (storesLiteral || ownRowsOnly);
      if (!legitimate) problems.push(`${where}: ${answer} changed ${stored.slice(0, 600)}`);
    }
    return problems;
  }

  async function run(
    build: (route: DiscoveredRoute) => Case[],
    filter: (route: DiscoveredRoute) => boolean = () => true,
  ): Promise<string[]> {
    const problems: string[] = [];
    for (const route of callable().filter(filter)) {
      const callers: Array<Caller | null> = route.minRole === undefined ? [root, null] : [root];
      for (const testCase of build(route)) {
        for (const caller of callers) problems.push(...(await attempt(route, caller, testCase)));
      }
    }
    return problems;
  }

  it('covers the routes of the foundation and names its exemptions', () => {
    const names = routes.map(routeName);
    for (const expected of [
      'POST /api/user/register',
      'POST /api/user/login',
      'PUT /api/user/self',
      'POST /api/user/aff_transfer',
      'PUT /api/user',
      'POST /api/user',
      'POST /api/user/manage',
      'DELETE /api/user/:id',
      'PUT /api/option',
      'POST /api/user/reset',
      'GET /api/oauth/github',
    ]) {
      expect(names).toContain(expected);
    }
    for (const exempt of EXEMPT.keys()) expect(names).toContain(exempt);
    expect(names.some((name) => NOT_CONSOLE.test(name.split(' ')[1]))).toBe(false);
  });

  it('answers malformed and non-object JSON bodies with the envelope and changes nothing', async () => {
    expect(await run(malformedBodies, hasBody)).toEqual([]);
  }, 120_000);

  it('answers wrong types (numbers as strings, objects, arrays, null, out-of-range numbers) and changes nothing', async () => {
    expect(await run(wrongTypeBodies, hasBody)).toEqual([]);
  }, 120_000);

  it('answers missing fields and changes nothing', async () => {
    expect(await run(missingFieldBodies)).toEqual([]);
  }, 120_000);

  it('answers over-long strings, NUL and injection strings in bodies; what succeeds stores them verbatim', async () => {
    expect(await run(stringBodies, hasBody)).toEqual([]);
  }, 240_000);

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
