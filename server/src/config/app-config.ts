import { z } from 'zod';

export const ROLES = ['api', 'worker', 'projector'] as const;
export type RuntimeRole = (typeof ROLES)[number];

/**
 * One environment variable: how it is parsed, and how the README's configuration table states its default
 * (readme-config.spec.ts holds the two together).
 */
interface Variable<T extends z.ZodType> {
  schema: T;
  /** The README's default cell, literally. */
  documentedDefault: string;
}

/** A blank value counts as unset, as `VAR=` in a compose file or a shell means. */
function present(raw: string | undefined): raw is string {
  return raw !== undefined && raw.trim() !== '';
}

/** The value parsed by `parse`, or a zod issue whose message is `must be <accepted> (got "raw")`. */
function variable<T>(accepted: string, parse: (raw: string) => T | undefined) {
  return z
    .string()
    .optional()
    .transform((raw, context): T | undefined => {
      if (!present(raw)) return undefined;
      const value = parse(raw.trim());
      if (value === undefined) {
        context.addIssue({ code: 'custom', message: `must be ${accepted} (got "${raw}")` });
        return z.NEVER;
      }
      return value;
    });
}

function withDefault<T>(schema: z.ZodType<T | undefined, string | undefined>, fallback: T) {
  return schema.transform((value): T => (value === undefined ? fallback : value));
}

const range = (min: number, max?: number) => (max === undefined ? `>= ${min}` : `${min}..${max}`);

function integer(fallback: number, min: number, max?: number): Variable<z.ZodType<number, string | undefined>> {
  const parse = (raw: string) => {
    if (!/^[-+]?\d+$/.test(raw)) return undefined;
    const value = Number(raw);
    return value >= min && (max === undefined || value <= max) ? value : undefined;
  };
  return { schema: withDefault(variable(`an integer ${range(min, max)}`, parse), fallback), documentedDefault: `\`${fallback}\`` };
}

/** An optional integer without a fixed default (the code picks one from other settings). */
function optionalInteger(min: number, documentedDefault: string): Variable<z.ZodType<number | undefined, string | undefined>> {
  const parse = (raw: string) => (/^[-+]?\d+$/.test(raw) && Number(raw) >= min ? Number(raw) : undefined);
  return { schema: variable(`an integer ${range(min)}`, parse), documentedDefault };
}

/** A decimal number; `above` makes the minimum exclusive. */
function decimal(
  fallback: number,
  options: { min: number; max?: number; above?: boolean },
): Variable<z.ZodType<number, string | undefined>> {
  const accepted = options.above ? `a number > ${options.min}` : `a number ${range(options.min, options.max)}`;
  const parse = (raw: string) => {
    if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(raw)) return undefined;
    const value = Number(raw);
    const low = options.above ? value > options.min : value >= options.min;
    return low && (options.max === undefined || value <= options.max) ? value : undefined;
  };
  return { schema: withDefault(variable(accepted, parse), fallback), documentedDefault: `\`${fallback}\`` };
}

const SWITCH_ON = ['on', 'true', '1', 'yes'];
const SWITCH_OFF = ['off', 'false', '0', 'no'];

/** A switch; `spelling` is how the README writes it (`true`/`false` or `on`/`off`). Every spelling is accepted. */
function flag(fallback: boolean, spelling: 'true' | 'on'): Variable<z.ZodType<boolean, string | undefined>> {
  const parse = (raw: string) => {
    const value = raw.toLowerCase();
    return SWITCH_ON.includes(value) ? true : SWITCH_OFF.includes(value) ? false : undefined;
  };
  const shown = spelling === 'true' ? String(fallback) : fallback ? 'on' : 'off';
  return { schema: withDefault(variable('on or off (or true/false, 1/0, yes/no)', parse), fallback), documentedDefault: `\`${shown}\`` };
}

function oneOf<const T extends string>(values: readonly T[], fallback: T): Variable<z.ZodType<T, string | undefined>> {
  const parse = (raw: string) => values.find((value) => value === raw.toLowerCase());
  return { schema: withDefault(variable(`one of ${values.join(', ')}`, parse), fallback), documentedDefault: `\`${fallback}\`` };
}

function text(fallback: string, documentedDefault = `\`${fallback}\``): Variable<z.ZodType<string, string | undefined>> {
  return {
    schema: withDefault(
      variable('text', (raw) => raw),
      fallback,
    ),
    documentedDefault,
  };
}

function optionalText(documentedDefault: string): Variable<z.ZodType<string | undefined, string | undefined>> {
  return { schema: variable('text', (raw) => raw), documentedDefault };
}

/** Any `scheme://…`: an object-store URL (s3://, gs://, az://), or a file:// one; what a folder variable refuses. */
export const URL_PATTERN = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The archive's root: a folder of the local file system (a mounted bucket is one) or an `s3://bucket[/prefix]` URL
 * (an S3 bucket or an S3-compatible store). Any other URL is refused at start, naming the variable.
 */
function archiveRoot(documentedDefault: string): Variable<z.ZodType<string | undefined, string | undefined>> {
  const accepted = 'a local folder or an s3://bucket[/prefix] URL (for another object store, mount the bucket and give its folder)';
  const parse = (raw: string) => (!URL_PATTERN.test(raw) ? raw : /^s3:\/\/[^/?#]+(\/[^?#]*)?$/i.test(raw) ? raw : undefined);
  return { schema: variable(accepted, parse), documentedDefault };
}

/** An http(s) URL (an endpoint). */
function optionalHttpUrl(documentedDefault: string): Variable<z.ZodType<string | undefined, string | undefined>> {
  const parse = (raw: string) => {
    try {
      const url = new URL(raw);
      return url.protocol === 'http:' || url.protocol === 'https:' ? raw : undefined;
    } catch {
      return undefined;
    }
  };
  return { schema: variable('an http:// or https:// URL', parse), documentedDefault };
}

/** A switch without a fixed default (the code picks one from other settings). */
function optionalFlag(documentedDefault: string): Variable<z.ZodType<boolean | undefined, string | undefined>> {
  const parse = (raw: string) => {
    const value = raw.toLowerCase();
    return SWITCH_ON.includes(value) ? true : SWITCH_OFF.includes(value) ? false : undefined;
  };
  return { schema: variable('on or off (or true/false, 1/0, yes/no)', parse), documentedDefault };
}

/**
 * Every environment variable the product reads, with its default. Values are parsed once at start
 * (bootstrap-config.ts) and reach the code through the APP_CONFIG provider or as arguments; nothing else reads
 * process.env for configuration. The README's configuration table lists the same variables with the same defaults
 * (readme-config.spec.ts).
 */
const variables = {
  /** Where the api role listens. */
  PORT: integer(3000, 0, 65535),
  HOST: text('0.0.0.0'),
  /**
   * Without --role: `supervisor` (one child process per role under a supervisor), or the roles this one process runs:
   * api, worker, projector (comma-separated) or all.
   */
  ROLE: text('supervisor'),
  /** How long the supervisor waits for its children to stop (they ship their charges) before it kills them. */
  SHUTDOWN_TIMEOUT_MS: integer(20_000, 1000),
  /** Postgres for read models, configuration and (by default) the event store. Unset: local server, else embedded. */
  DATABASE_URL: optionalText('local server, else embedded'),
  /** Redis for sessions, rate limits, caches and BullMQ. Unset: 127.0.0.1:6379, else a local redis-server. */
  REDIS_URL: optionalText('127.0.0.1:6379, else a started `redis-server`'),
  /** With REDIS_URL unset: the local port probed, and the one a started redis-server listens on. */
  REDIS_PORT: integer(6379, 1, 65535),
  /**
   * A Redis connection whose PING stays unanswered this long is dropped and reconnected, so that a frozen Redis is
   * treated as one that is away (infrastructure/redis/redis-liveness.ts). 0: not watched.
   */
  REDIS_UNRESPONSIVE_MS: integer(5_000, 0),
  /** esdb://… selects the EventStoreDB adapter; unset uses the Postgres events table. */
  EVENTSTORE_URL: optionalText('unset: the Postgres `events` table'),
  /** Prefix for every Redis key and BullMQ queue, so several installations can share one Redis. */
  REDIS_PREFIX: text('tollgate'),
  /** Signs the session cookie. Unset: generated once into DATA_DIR/session-secret (config/session-secret.ts). */
  SESSION_SECRET: optionalText('generated once into `DATA_DIR/session-secret`'),
  /**
   * Encrypts channel keys and secret options at rest (AES-256-GCM; any text of 32+ characters). Unset: generated once
   * into DATA_DIR/secret-key (common/crypto/secret-key.ts). Rotation: the new key here, the old one in SECRETS_OLD_KEYS.
   */
  SECRETS_KEY: optionalText('generated once into `DATA_DIR/secret-key`'),
  /** Comma-separated keys SECRETS_KEY replaced: they only open values; each start re-encrypts those with SECRETS_KEY. */
  SECRETS_OLD_KEYS: optionalText('none'),
  SESSION_TTL_SECONDS: { ...integer(30 * 24 * 3600, 1), documentedDefault: '`2592000` (30 days)' },
  DATA_DIR: text('./data'),
  /**
   * Root of the relay's charge journal (default DATA_DIR/journal). A RAM-backed folder (tmpfs) removes the file
   * system's journalling stalls from the answer's path and keeps the default guarantee (a charge survives the
   * process dying); only with a disk folder does RELAY_JOURNAL_FSYNC=on also survive the machine.
   */
  RELAY_JOURNAL_DIR: optionalText('`DATA_DIR/journal`'),
  /**
   * Root of the ledger archive (default DATA_DIR/archive): `npm run ledger:archive` writes the old events' monthly
   * segments to <root>/<database>, and the Postgres event store reads them back from there. A local folder or an
   * `s3://bucket[/prefix]` URL (docs/ledger.md, "Object stores"); any other URL stops every process at start.
   */
  LEDGER_ARCHIVE_DIR: archiveRoot('`DATA_DIR/archive`'),
  /** With an s3:// archive: an S3-compatible endpoint (MinIO, Ceph, R2…); unset, AWS S3 itself. */
  LEDGER_ARCHIVE_S3_ENDPOINT: optionalHttpUrl('AWS S3'),
  /** With an s3:// archive: the bucket's region (the signing region of an S3-compatible store). */
  LEDGER_ARCHIVE_S3_REGION: text('us-east-1'),
  /** With an s3:// archive: path-style requests (endpoint/bucket/key), which most S3-compatible stores need. */
  LEDGER_ARCHIVE_S3_FORCE_PATH_STYLE: optionalFlag('`on` with an endpoint, else `off`'),
  /**
   * With an s3:// archive: an access key pair (both or neither); neither, the AWS SDK's own chain (AWS_ACCESS_KEY_ID
   * and AWS_SECRET_ACCESS_KEY, a profile, an instance or pod role).
   */
  LEDGER_ARCHIVE_S3_ACCESS_KEY_ID: optionalText('the AWS SDK chain'),
  LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY: optionalText('the AWS SDK chain'),
  /** > 0: the worker role archives, once a day, the ledger events older than this many whole months (0: never). */
  LEDGER_ARCHIVE_KEEP_MONTHS: integer(0, 0, 1200),
  /** Allows `apt-get install redis-server` when no Redis can be found. */
  ALLOW_PACKAGE_INSTALL: flag(true, 'true'),
  GLOBAL_API_RATE_LIMIT: integer(180, 1),
  GLOBAL_API_RATE_WINDOW_SECONDS: integer(180, 1),
  GLOBAL_WEB_RATE_LIMIT: integer(60, 1),
  GLOBAL_WEB_RATE_WINDOW_SECONDS: integer(180, 1),
  CRITICAL_RATE_LIMIT: integer(20, 1),
  CRITICAL_RATE_WINDOW_SECONDS: integer(1200, 1),
  GENERATE_DEFAULT_TOKEN: flag(false, 'true'),
  /** Third-party hosts: configurable so tests (and air-gapped installs) can point them elsewhere. */
  GITHUB_OAUTH_URL: text('https://github.com'),
  GITHUB_API_URL: text('https://api.github.com'),
  TURNSTILE_VERIFY_URL: text('https://challenges.cloudflare.com/turnstile/v0/siteverify', "Cloudflare's siteverify"),
  /** Deadline of one call to GitHub, the WeChat server or Turnstile (new-api used 5 s). */
  OAUTH_TIMEOUT_MS: integer(5000, 1),
  /** Outgoing mail: delivery attempts per message and the first retry delay (doubled each time). */
  MAIL_ATTEMPTS: integer(5, 1),
  MAIL_BACKOFF_MS: integer(5000, 0),
  /** How long a console command waits for the read models to show its own write. */
  READ_YOUR_WRITES_TIMEOUT_MS: integer(5000, 0),
  /**
   * How long the projector lets a partial batch wait for more events before it commits it: longer means fewer, larger
   * transactions (less CPU per charge under load) and a later view of each charge, console writes included
   * (docs/benchmark.md, "The projector's linger").
   */
  PROJECTOR_LINGER_MS: integer(10, 0),
  LOG_LEVEL: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  /** Where the built console lives; served at `/`. */
  CONSOLE_DIST: text('console/dist'),
  /** Shown by GET /api/status. */
  VERSION: text('v0.3.0.0-tollgate'),
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`; unset, it is closed (404). */
  METRICS_TOKEN: optionalText('unset: `/metrics` answers 404'),
  /** Opens GET /metrics to anyone when no METRICS_TOKEN is set (a scraper on a network you trust). */
  METRICS_PUBLIC: flag(false, 'true'),
  /** Take the client address from X-Forwarded-For (behind a reverse proxy you control). */
  TRUST_PROXY: flag(false, 'true'),
  /** Postgres connections per process (TypeORM's pool). */
  DATABASE_POOL_SIZE: integer(20, 1),
  /** Connections of the Postgres event store. */
  EVENTSTORE_POOL_SIZE: integer(10, 1),
  /** PG_PREPARED_STATEMENTS=off sends the batch statements unnamed (for a pooler in transaction mode). */
  PG_PREPARED_STATEMENTS: flag(true, 'on'),
  /** Port of the embedded Postgres started when no server is found. */
  EMBEDDED_PG_PORT: integer(54329, 1, 65535),
  /** An idle upstream socket is closed after this long, whatever the upstream's Keep-Alive offers. */
  UPSTREAM_KEEPALIVE_MS: integer(20_000, 1000),
  /** Keep-alive sockets per upstream origin (streams hold one each). */
  UPSTREAM_MAX_CONNECTIONS: integer(4096, 1),
  /** Let the relay fetch client image URLs on loopback/private/link-local addresses (off guards against SSRF). */
  RELAY_MEDIA_ALLOW_PRIVATE: flag(false, 'true'),
  /** Seconds to wait for an upstream's answer headers (non-streaming); 0: no limit. */
  RELAY_TIMEOUT: { ...decimal(0, { min: 0 }), documentedDefault: '`0` (none)' },
  /** Seconds a stream may stay silent before it is cut. */
  STREAMING_TIMEOUT: decimal(30, { min: 1 }),
  /**
   * After the client left, how long the relay keeps reading an upstream that has its request, to charge what the
   * upstream reports; then it aborts the call and charges the estimate. 0: abort at once (and charge the estimate).
   */
  RELAY_DRAIN_AFTER_CLIENT_GONE_MS: integer(30_000, 0),
  /** Threshold sent for the four Gemini harm categories, by the relay and by channel tests. */
  GEMINI_SAFETY_SETTING: text('BLOCK_NONE'),
  /** Dify streams: show workflow_started and node_started as `Workflow: <id>` / `Node: <id>` lines of text (new-api's DIFY_DEBUG). */
  DIFY_DEBUG: flag(true, 'true'),
  /** Ask streaming upstreams for usage (`stream_options.include_usage`). */
  FORCE_STREAM_OPTION: flag(true, 'true'),
  /** A reservation's lease: how long a dead process's quota stays held; renewed at a third. */
  RELAY_LEASE_MS: integer(60_000, 1000),
  /** How often the worker role sweeps expired leases (and ships the journals of dead processes). */
  RELAY_LEASE_SWEEP_MS: integer(5_000, 100),
  /** When a relayed answer may end: once its charge is in the process's journal, or once it is in the ledger. */
  RELAY_CHARGE_DURABILITY: oneOf(['journal', 'ledger'], 'journal'),
  /** on: flush each journal write to disk before the answer ends. */
  RELAY_JOURNAL_FSYNC: flag(false, 'on'),
  /**
   * With admission's Redis connection down, how long a request that needs Redis to be admitted waits for it; then it
   * is refused with 503 (quota service unavailable). Not consulted while the connection is up.
   */
  RELAY_ADMISSION_REDIS_WAIT_MS: integer(5_000, 0),
  /** off: every request reserves in Redis (no quota blocks). */
  RELAY_QUOTA_BLOCKS: flag(true, 'on'),
  /** Unused quota blocks are given back after this idle time. */
  RELAY_QUOTA_BLOCK_IDLE_MS: integer(2000, 100),
  /** Group commit of relay charges: most charges per statement, statements at once, linger of a batch. */
  SETTLEMENT_BATCH_MAX: integer(64, 1),
  SETTLEMENT_BATCHES_IN_FLIGHT: integer(2, 1),
  /** Unset: 10 ms with the journal, 0 with RELAY_CHARGE_DURABILITY=ledger (group-commit.ts). */
  SETTLEMENT_LINGER_MS: optionalInteger(0, '`10` with the journal, `0` with `RELAY_CHARGE_DURABILITY=ledger`'),
  /** How much a process without the api role lowers its CPU priority (0: not at all). */
  BACKGROUND_NICE: integer(10, 0, 19),
  /** off: no full collection when the process goes quiet after a burst (config/idle-heap-collector.ts). */
  IDLE_GC: flag(true, 'on'),
  IDLE_GC_MIN_GROWTH_MB: decimal(32, { min: 0, above: true }),
  /** off: the static /v1 POST routes go through Fastify instead of the request listener ahead of it. */
  RELAY_FAST_PATH: flag(true, 'on'),
  /** on: relay charges wait for Postgres's WAL flush like every other append. */
  RELAY_CHARGE_SYNC_COMMIT: flag(false, 'on'),
  /** How often relay successes counted in process are sent to the channel-health worker. */
  RELAY_OUTCOME_FLUSH_MS: integer(1000, 50),
  /** Transient failures (5xx, 429, timeouts) needed within the window before a channel can be auto-disabled. */
  CHANNEL_FAILURE_MIN_COUNT: integer(20, 1),
  /** Failure share that must be exceeded as well (0.5: more than half of the counted outcomes failed). */
  CHANNEL_FAILURE_RATE: decimal(0.5, { min: 0, max: 1 }),
  CHANNEL_FAILURE_WINDOW_SECONDS: integer(60, 1),
  /** Minutes between automatic tests of every channel; 0: off. */
  CHANNEL_TEST_FREQUENCY: { ...decimal(0, { min: 0 }), documentedDefault: '`0` (off)' },
  /** Minutes between automatic balance refreshes; 0: off. */
  CHANNEL_UPDATE_FREQUENCY: { ...decimal(0, { min: 0 }), documentedDefault: '`0` (off)' },
  /** Deadline of one channel test or balance call. */
  CHANNEL_TEST_TIMEOUT_MS: integer(60_000, 1),
  /** Seconds between two channels of a test-all or balance-all run. */
  POLLING_INTERVAL: decimal(0, { min: 0 }),
};

type Variables = typeof variables;

export const configSchema = z.object(
  Object.fromEntries(Object.entries(variables).map(([name, spec]) => [name, spec.schema])) as {
    [K in keyof Variables]: Variables[K]['schema'];
  },
);

/** Every variable with the README's wording of its default (readme-config.spec.ts). */
export const CONFIG_VARIABLES: ReadonlyArray<{ name: string; documentedDefault: string }> = Object.entries(variables).map(
  ([name, spec]) => ({
    name,
    documentedDefault: spec.documentedDefault,
  }),
);

export type EnvConfig = z.infer<typeof configSchema>;

export type AppConfig = EnvConfig & {
  /** Resolved connection strings (after embedded defaults were applied). */
  DATABASE_URL: string;
  REDIS_URL: string;
  roles: RuntimeRole[];
};

export const APP_CONFIG = Symbol('APP_CONFIG');

/** The environment parsed; a bad value throws one error naming every bad variable and what it accepts. */
export function parseConfig(env: Record<string, string | undefined>): EnvConfig {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  if ((result.data.LEDGER_ARCHIVE_S3_ACCESS_KEY_ID === undefined) !== (result.data.LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY === undefined)) {
    throw new Error(
      'Invalid configuration: LEDGER_ARCHIVE_S3_ACCESS_KEY_ID and LEDGER_ARCHIVE_S3_SECRET_ACCESS_KEY go together: set both, or neither for the AWS SDK chain',
    );
  }
  return result.data;
}

/** Every variable at its default: for code that specs build by hand without a configuration. */
export const CONFIG_DEFAULTS: EnvConfig = parseConfig({});

function roleArgument(argv: string[], role: string): string {
  const index = argv.indexOf('--role');
  const inline = argv.find((argument) => argument.startsWith('--role='));
  return inline ? inline.slice('--role='.length) : index >= 0 ? argv[index + 1] : role;
}

/** `supervisor` when `--role supervisor` (or no --role and ROLE=supervisor, the default); else the roles to run here. */
export function parseStart(argv: string[], role = 'supervisor'): 'supervisor' | RuntimeRole[] {
  return roleArgument(argv, role).trim() === 'supervisor' ? 'supervisor' : parseRoles(argv, role);
}

/** The roles from `--role x` / `--role=x`, else from ROLE (the parsed configuration's). */
export function parseRoles(argv: string[], role = 'all'): RuntimeRole[] {
  const value = roleArgument(argv, role);
  if (!value || value === 'all') return [...ROLES];
  const roles = value.split(',').map((role) => role.trim());
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new Error(`Unknown --role "${role}": use api, worker, projector, all or supervisor`);
    }
  }
  return roles as RuntimeRole[];
}
