import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import { evolve, type TokenQuotaState } from './token.decider';
import { type TokenConsumption, type TokenEvent, TokenEventType, type TokenQuota } from './token.events';

export class UnknownTokenEventError extends Error {
  readonly code = 'unknown_token_event';
  constructor(type: string) {
    super(`Token streams hold an event of unknown type "${type}": teach token.decider evolve() about it`);
  }
}

function safeInteger(data: Record<string, unknown>, key: string): number {
  const value = data[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new Error(`Token event field ${key} is not a safe integer: ${JSON.stringify(value)}`);
  }
  return value;
}

function quotaOf(value: unknown): TokenQuota | null {
  if (value === null || value === undefined) return null;
  const data = value as Record<string, unknown>;
  return { remainQuota: safeInteger(data, 'remainQuota'), unlimited: data.unlimited === true };
}

/** The domain event inside a stored (or about-to-be-stored) token event, with its fields checked. */
export function toTokenEvent(event: EventShape): TokenEvent {
  const data = event.data as Record<string, unknown>;
  if (event.type !== TokenEventType.TokenQuotaAllotted) throw new UnknownTokenEventError(event.type);
  return {
    type: 'TokenQuotaAllotted',
    data: {
      userId: safeInteger(data, 'userId'),
      remainQuota: safeInteger(data, 'remainQuota'),
      unlimited: data.unlimited === true,
      before: quotaOf(data.before),
    },
  };
}

/** evolve over stored events, for loadAndAppend. */
export function evolveStored(state: TokenQuotaState, event: EventShape): TokenQuotaState {
  return evolve(state, toTokenEvent(event));
}

export function toNewTokenEvent(event: TokenEvent, options: { id: string; metadata: MetadataInput }): NewEvent {
  return newEvent(event.type, { ...event.data }, options);
}

/**
 * The token charge inside a QuotaConsumed account event, or null when the request used no token (the
 * playground: tokenId 0 or absent). A present tokenId with a malformed quota is corrupt data and throws.
 */
export function tokenConsumptionOf(data: Record<string, unknown>): TokenConsumption | null {
  const tokenId = data.tokenId;
  if (tokenId === undefined || tokenId === null || tokenId === 0) return null;
  if (typeof tokenId !== 'number' || !Number.isSafeInteger(tokenId) || tokenId < 0) {
    throw new Error(`QuotaConsumed.tokenId is not a token id: ${JSON.stringify(tokenId)}`);
  }
  return { tokenId, quota: safeInteger(data, 'quota'), unlimited: data.tokenUnlimited === true };
}
