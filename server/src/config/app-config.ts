import { z } from 'zod';

export const ROLES = ['api', 'worker', 'projector'] as const;
export type RuntimeRole = (typeof ROLES)[number];

const bool = z
  .union([z.boolean(), z.string()])
  .transform((value) => value === true || value === 'true' || value === '1');
const int = (fallback: number) => z.coerce.number().int().default(fallback);

/**
 * Every environment variable the product reads, with its default. The README's configuration table is
 * generated from the same names; keep both in step.
 */
export const configSchema = z.object({
  PORT: int(3000),
  HOST: z.string().default('0.0.0.0'),
  /** Postgres for read models, configuration and (by default) the event store. Unset: local server, else embedded. */
  DATABASE_URL: z.string().optional(),
  /** Redis for sessions, rate limits, caches and BullMQ. Unset: 127.0.0.1:6379, else a local redis-server. */
  REDIS_URL: z.string().optional(),
  /** esdb://… selects the EventStoreDB adapter; unset uses the Postgres events table. */
  EVENTSTORE_URL: z.string().optional(),
  /** Prefix for every Redis key and BullMQ queue, so several installations can share one Redis. */
  REDIS_PREFIX: z.string().default('tollgate'),
  /** Signs the session cookie. Unset: a random secret per boot (sessions die on restart, as in new-api). */
  SESSION_SECRET: z.string().optional(),
  SESSION_TTL_SECONDS: int(30 * 24 * 3600),
  DATA_DIR: z.string().default('./data'),
  /**
   * Root of the relay's charge journal (default DATA_DIR/journal). A RAM-backed folder (tmpfs) removes the file
   * system's journalling stalls from the answer's path and keeps the default guarantee (a charge survives the
   * process dying); only with a disk folder does RELAY_JOURNAL_FSYNC=on also survive the machine.
   */
  RELAY_JOURNAL_DIR: z.string().optional(),
  /** Allows `apt-get install redis-server` when no Redis can be found. */
  ALLOW_PACKAGE_INSTALL: bool.default(true),
  GLOBAL_API_RATE_LIMIT: int(180),
  GLOBAL_API_RATE_WINDOW_SECONDS: int(180),
  GLOBAL_WEB_RATE_LIMIT: int(60),
  GLOBAL_WEB_RATE_WINDOW_SECONDS: int(180),
  CRITICAL_RATE_LIMIT: int(20),
  CRITICAL_RATE_WINDOW_SECONDS: int(1200),
  GENERATE_DEFAULT_TOKEN: bool.default(false),
  /** Third-party hosts: configurable so tests (and air-gapped installs) can point them elsewhere. */
  GITHUB_OAUTH_URL: z.string().default('https://github.com'),
  GITHUB_API_URL: z.string().default('https://api.github.com'),
  TURNSTILE_VERIFY_URL: z.string().default('https://challenges.cloudflare.com/turnstile/v0/siteverify'),
  /** Deadline of one call to GitHub, the WeChat server or Turnstile (new-api used 5 s). */
  OAUTH_TIMEOUT_MS: int(5000),
  /** Outgoing mail: delivery attempts per message and the first retry delay (doubled each time). */
  MAIL_ATTEMPTS: int(5),
  MAIL_BACKOFF_MS: int(5000),
  /** How long a console command waits for the read models to show its own write. */
  READ_YOUR_WRITES_TIMEOUT_MS: int(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Where the built console lives; served at `/`. */
  CONSOLE_DIST: z.string().default('console/dist'),
  VERSION: z.string().default('v0.3.0.0-tollgate'),
  /** When set, GET /metrics requires `Authorization: Bearer <METRICS_TOKEN>`; unset, it is open. */
  METRICS_TOKEN: z.string().optional(),
});

export type AppConfig = z.infer<typeof configSchema> & {
  /** Resolved connection strings (after embedded defaults were applied). */
  DATABASE_URL: string;
  REDIS_URL: string;
  roles: RuntimeRole[];
};

export const APP_CONFIG = Symbol('APP_CONFIG');

export function parseConfig(env: Record<string, string | undefined>) {
  const result = configSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return result.data;
}

export function parseRoles(argv: string[]): RuntimeRole[] {
  const index = argv.indexOf('--role');
  const inline = argv.find((argument) => argument.startsWith('--role='));
  const value = inline ? inline.slice('--role='.length) : index >= 0 ? argv[index + 1] : process.env.ROLE ?? 'all';
  if (!value || value === 'all') return [...ROLES];
  const roles = value.split(',').map((role) => role.trim());
  for (const role of roles) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new Error(`Unknown --role "${role}": use api, worker, projector or all`);
    }
  }
  return roles as RuntimeRole[];
}
