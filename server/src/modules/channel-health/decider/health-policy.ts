import type { OptionsService } from '../../options/options.service';
import type { ChannelHealthConfig } from '../config/channel-health.config';
import type { HealthPolicy } from './channel-health.decider';

/** The decision rules as they are now: options (changed live in the console) and the worker's environment. */
export function healthPolicy(options: OptionsService, config: ChannelHealthConfig): HealthPolicy {
  return {
    autoDisableEnabled: options.getBool('AutomaticDisableChannelEnabled'),
    autoEnableEnabled: options.getBool('AutomaticEnableChannelEnabled'),
    responseTimeThresholdSeconds: options.getNumber('ChannelDisableThreshold'),
    minFailures: config.CHANNEL_FAILURE_MIN_COUNT,
    failureRate: config.CHANNEL_FAILURE_RATE,
    windowSeconds: config.CHANNEL_FAILURE_WINDOW_SECONDS,
  };
}
