import type request from 'supertest';
import { createTestApp, type TestApp } from '../support/app';
import { discoverRoutes, type DiscoveredRoute } from '../support/routes';
import { call, type Caller, changedRows, projected, rootCaller, tablesFingerprint, tablesSnapshot } from './users-support';

/** What the bad-input specs share: the routes they call, the cases' shape, and the check every answer goes through. */

/** Relay surfaces (OpenAI error envelope, their own specs) and the Prometheus endpoint are not console routes. */
export const NOT_CONSOLE = /^\/(v1|pg|mj|suno|metrics|dashboard)(\/|$)/;

/**
 * Routes the bad-input specs do not call, and why. Everything else is called with every case.
 * - GET /api/user/token mints a new system access token on every call by design (it reads no input at all), so
 *   it changes state on any request; calling it would also revoke the token the specs authenticate with.
 */
export const EXEMPT = new Map<string, string>([['GET /api/user/token', 'mints a new access token on every call; reads no input']]);

/**
 * Routes that legitimately change state on good-looking input whatever else it holds, and why. Their answers are
 * still checked (no 5xx, the envelope); a success may change their own rows but never users or options.
 * - POST /api/token: every field is optional, as in new-api, so any JSON object (`{}` too) creates a token
 *   with defaults (name "", no quota, never expires); unknown fields are ignored.
 */
export const CHANGES_ON_GOOD_LOOKING_INPUT = new Map<string, string>([
  ['POST /api/token', 'every field optional: {} creates a token with defaults'],
]);

/**
 * Calls that legitimately change state the first time and never again, made once before the cases so that the
 * cases see a settled state: the invite code is generated on first read; the model-ratio reset writes the
 * default once.
 */
export const WARM_UP: Array<{ method: 'get' | 'post'; path: string }> = [
  { method: 'get', path: '/api/user/aff' },
  { method: 'post', path: '/api/option/rest_model_ratio' },
];

/** Top-level keys a route's envelope documents beside success, message and data (new-api's exceptions). */
export const EXTRA_ENVELOPE_KEYS = new Map<string, string[]>([['GET /api/pricing', ['group_ratio']]]);

/** `{message:"success"|"error", data, url?}` (no `success` key), the error text in `data`: POST /api/user/pay and /amount. */
function isPayShape(response: request.Response): boolean {
  const body = response.body as Record<string, unknown> | null;
  if (response.status !== 200 || body === null || typeof body !== 'object') return false;
  if (!Object.keys(body).every((key) => ['message', 'data', 'url'].includes(key))) return false;
  if (body.message === 'error') return typeof body.data === 'string' && body.data.trim() !== '';
  return body.message === 'success';
}

/** Routes whose documented answer is not the envelope (new-api's exceptions, docs/console-api.md), with its check. */
export const OTHER_SHAPES = new Map<string, (response: request.Response) => boolean>([
  ['POST /api/user/pay', isPayShape],
  ['POST /api/user/amount', isPayShape],
  ['GET /api/user/epay/notify', (response) => response.status === 200 && ['success', 'fail'].includes(response.text)],
]);

export const LONG = 'x'.repeat(10_000);
export const INJECTIONS = [
  "' OR '1'='1",
  '1; DROP TABLE users; --',
  '<script>alert(1)</script>',
  '../../etc/passwd',
  'a\u0000b',
  '{{7*7}}${7*7}',
  '%00%27',
];

export type Send = (pending: request.Test) => request.Test;

export interface Case {
  label: string;
  /** Path to call (path parameters filled). */
  path: string;
  send?: Send;
  /** Text the request carries that a successful call may store verbatim. */
  literal?: string;
}

/** The same path with every `:param` set to a harmless id no row has. */
export const neutralPath = (path: string) => path.replace(/:[A-Za-z_]+/g, '987654');
export const hasBody = (route: DiscoveredRoute) => route.method !== 'GET' && route.method !== 'HEAD';

/** What the bad-input specs share once their app is up (filled in by the fixture's beforeAll). */
export interface BadInputContext {
  target: TestApp;
  root: Caller;
  /** Every console route the app has, found by reflection. */
  routes: DiscoveredRoute[];
}

export const routeName = (route: DiscoveredRoute) => `${route.method} ${route.path}`;

/**
 * Registers the bad-input app for the enclosing describe (root, the warm-up calls, a snapshot of every table) and
 * returns the context and `run`, which sends every case of a route to it as root, and anonymously where the route
 * is public. Call it first in the describe, so its beforeAll runs before the spec's own.
 *
 * Each answer must be below 500 and in the documented shape: the envelope `{success, message, data?}` with a
 * non-empty message on failure (HTTP 200; 400 for PUT /api/option/ with an undecodable body; 403 for a GitHub
 * OAuth state mismatch), also for a path the router itself refuses (a parameter that does not percent-decode,
 * or one of 10 000 characters; server/src/common/http/framework-errors.ts). A refused request changes nothing. A request that succeeds may
 * only store the text it sent, verbatim, in at most one users row and one options row (an injection string is
 * data: a display name "' OR '1'='1" is a legitimate display name); anything else it changes is a failure.
 */
export function badInputFixture() {
  const context = {} as BadInputContext;
  let state: Record<string, unknown[]>;
  let fingerprint: string;

  beforeAll(async () => {
    const target = (context.target = await createTestApp());
    const root = (context.root = await rootCaller(target));
    for (const warm of WARM_UP) await call(target, root, warm.method, warm.path).expect(200);
    await projected(target);
    context.routes = discoverRoutes(target.app).filter((route) => !NOT_CONSOLE.test(route.path));
    state = await tablesSnapshot(target);
    fingerprint = await tablesFingerprint(target);
  }, 60_000);
  afterAll(async () => {
    await context.target.close();
  });

  const callable = () => context.routes.filter((route) => !EXEMPT.has(routeName(route)));

  /** Sends one case as one caller; returns a description of everything wrong with the answer (empty: fine). */
  async function attempt(route: DiscoveredRoute, caller: Caller | null, testCase: Case): Promise<string[]> {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
    const { target } = context;
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
      Object.keys(envelope).every((key) =>
        ['success', 'message', 'data', ...(EXTRA_ENVELOPE_KEYS.get(routeName(route)) ?? [])].includes(key),
      );
    const isRedirect = response.status === 302; // GET /api/oauth/telegram/bind on success (documented)
    const isOtherShape = OTHER_SHAPES.get(routeName(route))?.(response) === true;
    if (!isEnvelope && !isRedirect && !isOtherShape) problems.push(`${where}: not the documented shape: ${answer}`);
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
    const { root } = context;
    for (const route of callable().filter(filter)) {
      const callers: Array<Caller | null> = route.minRole === undefined ? [root, null] : [root];
      for (const testCase of build(route)) {
        for (const caller of callers) problems.push(...(await attempt(route, caller, testCase)));
      }
    }
    return problems;
  }

  return { context, run };
}
