import { z } from 'zod';

/**
 * Environment of the channel workers. Read here rather than in config/app-config.ts so the feature stays in its
 * folder; the README's configuration table lists them.
 */
const schema = z.object({
  /** Transient failures (5xx, 429, timeouts) needed within the window before a channel can be auto-disabled. */
  CHANNEL_FAILURE_MIN_COUNT: z.coerce.number().int().min(1).default(20),
  /** Failure share that must be exceeded as well (0.5: more than half of the counted outcomes failed). */
  CHANNEL_FAILURE_RATE: z.coerce.number().min(0).max(1).default(0.5),
  CHANNEL_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).default(60),
  /** Minutes between automatic tests of every channel; unset or 0: off (new-api's CHANNEL_TEST_FREQUENCY). */
  CHANNEL_TEST_FREQUENCY: z.coerce.number().min(0).default(0),
  /** Minutes between automatic balance refreshes; unset or 0: off (CHANNEL_UPDATE_FREQUENCY). */
  CHANNEL_UPDATE_FREQUENCY: z.coerce.number().min(0).default(0),
  /** Seconds between two channels of a test-all or balance-all run (POLLING_INTERVAL). */
  POLLING_INTERVAL: z.coerce.number().min(0).default(0),
  /** Deadline of one channel test or balance call. */
  CHANNEL_TEST_TIMEOUT_MS: z.coerce.number().int().min(1).default(60_000),
});

export type ChannelHealthConfig = z.infer<typeof schema>;

export const CHANNEL_HEALTH_CONFIG = Symbol('CHANNEL_HEALTH_CONFIG');

export function readChannelHealthConfig(env: Record<string, string | undefined> = process.env): ChannelHealthConfig {
  const picked = Object.fromEntries(Object.keys(schema.shape).map((key) => [key, env[key] === '' ? undefined : env[key]]));
  const result = schema.safeParse(picked);
  if (!result.success) {
    throw new Error(`Invalid configuration: ${result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  return result.data;
}
