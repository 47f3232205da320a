export const REDIS = Symbol('REDIS');
/** A second connection for SUBSCRIBE (a subscribed connection cannot run other commands). */
export const REDIS_SUBSCRIBER = Symbol('REDIS_SUBSCRIBER');
