/**
 * Published (with the token id) by every command that changes a token's configuration or quota, so the relay's
 * in-process token caches drop the entry in every process (CacheInvalidationService).
 */
export const TOKENS_CHANGED_TOPIC = 'tokens';
