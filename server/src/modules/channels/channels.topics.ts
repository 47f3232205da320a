/**
 * Published (with the channel id, or '' for many) by every command that changes channel configuration or status,
 * so every process's ChannelRouter reloads its snapshot (CacheInvalidationService).
 */
export const CHANNELS_CHANGED_TOPIC = 'channels';
