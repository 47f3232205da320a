/**
 * What other modules use of channel health: the outcome of a channel call, its queue, and the reporter that feeds
 * the decision worker. Everything else (decider, commands, notifier) stays inside the module.
 */
export { CHANNEL_OUTCOMES_QUEUE, type ChannelOutcome, type ChannelOutcomeJob } from './outcome/channel-outcome';
export { ChannelOutcomeReporter } from './outcome/channel-outcome-reporter';
export { ChannelOutcomesModule } from './outcome/channel-outcomes.module';
