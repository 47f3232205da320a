/** The upstream adapters by channel type (upstreams/upstream-registry.ts), injectable so a spec can swap it. */
export const UPSTREAM_REGISTRY = Symbol('CHANNEL_HEALTH_UPSTREAM_REGISTRY');
