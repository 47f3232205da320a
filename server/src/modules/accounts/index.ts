/**
 * The accounts module's public entry: the events of the `account-{userId}` stream (the relay's QuotaConsumed
 * included) and the quota admission port. Only types and constants, so the projections can import it without pulling in
 * the module's Nest wiring.
 */
export * from './account.events';
export * from './quota-consumed.event';
export * from './quota-admission.port';
export * from './quota-consumed-event-codec';
