import type { DiscoveredRoute } from '../support/routes';
import {
  badInputFixture,
  type Case,
  EXEMPT,
  hasBody,
  INJECTIONS,
  LONG,
  neutralPath,
  NOT_CONSOLE,
  routeName,
  type Send,
} from './bad-input-support';

/**
 * Every console route of the app, found by reflection (a route added later is covered without editing this file),
 * gets bad bodies as root, and anonymously where the route is public: malformed JSON, non-object JSON, wrong types,
 * over-long strings, missing fields, injection strings. Bad query strings and path parameters are in
 * bad-input-params.spec.ts; what each answer must be, and what a request may change, is checked by bad-input-support.ts.
 */

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

const fill = (value: unknown) => Object.fromEntries(FIELDS.map((field) => [field, value]));
const json =
  (raw: string): Send =>
  (pending) =>
    pending.set('Content-Type', 'application/json').send(raw);
const body =
  (value: unknown): Send =>
  (pending) =>
    pending.send(value as object);

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

describe('bad input on every console route: bodies', () => {
  const fixture = badInputFixture();
  const { run } = fixture;

  it('covers the routes of the foundation and names its exemptions', () => {
    const names = fixture.context.routes.map(routeName);
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
});
