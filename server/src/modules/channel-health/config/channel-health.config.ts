import type { EnvConfig } from '#server/config/app-config';

/** The channel workers' part of the configuration (config/app-config.ts describes each variable). */
const CHANNEL_HEALTH_VARIABLES = [
  'CHANNEL_FAILURE_MIN_COUNT',
  'CHANNEL_FAILURE_RATE',
  'CHANNEL_FAILURE_WINDOW_SECONDS',
  'CHANNEL_TEST_FREQUENCY',
  'CHANNEL_UPDATE_FREQUENCY',
  'POLLING_INTERVAL',
  'CHANNEL_TEST_TIMEOUT_MS',
] as const;

export type ChannelHealthConfig = Pick<EnvConfig, (typeof CHANNEL_HEALTH_VARIABLES)[number]>;

export const CHANNEL_HEALTH_CONFIG = Symbol('CHANNEL_HEALTH_CONFIG');

export function channelHealthConfig(config: EnvConfig): ChannelHealthConfig {
  return Object.fromEntries(CHANNEL_HEALTH_VARIABLES.map((name) => [name, config[name]])) as ChannelHealthConfig;
}
