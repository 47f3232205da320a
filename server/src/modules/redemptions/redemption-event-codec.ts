import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import { type RedemptionEvent, RedemptionEventType } from './redemption.events';
import { evolve, type RedemptionState } from './redemption.state';

export class UnknownRedemptionEventError extends Error {
  readonly code = 'unknown_redemption_event';
  constructor(type: string) {
    super(`Redemption streams hold an event of unknown type "${type}": teach redemption.state evolve() about it`);
  }
}

function safeInteger(data: Record<string, unknown>, key: string): number {
  const value = data[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new Error(`Redemption event field ${key} is not a safe integer: ${JSON.stringify(value)}`);
  }
  return value;
}

function text(data: Record<string, unknown>, key: string): string {
  const value = data[key];
  if (typeof value !== 'string') throw new Error(`Redemption event field ${key} is not a string: ${JSON.stringify(value)}`);
  return value;
}

export const isRedemptionEventType = (type: string): boolean => (Object.values(RedemptionEventType) as string[]).includes(type);

/** The domain event inside a stored (or about-to-be-stored) redemption event, with its fields checked. */
export function toRedemptionEvent(event: EventShape): RedemptionEvent {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'RedemptionCodeIssued':
      return {
        type: 'RedemptionCodeIssued',
        data: {
          id: safeInteger(data, 'id'),
          key: text(data, 'key'),
          name: text(data, 'name'),
          quota: safeInteger(data, 'quota'),
          creatorId: safeInteger(data, 'creatorId'),
          createdTime: safeInteger(data, 'createdTime'),
        },
      };
    case 'RedemptionCodeEdited':
      return { type: 'RedemptionCodeEdited', data: { name: text(data, 'name'), quota: safeInteger(data, 'quota') } };
    case 'RedemptionCodeDisabled':
    case 'RedemptionCodeEnabled':
    case 'RedemptionCodeDeleted':
      return { type: event.type, data: {} };
    case 'RedemptionCodeRedeemed':
      return {
        type: 'RedemptionCodeRedeemed',
        data: {
          userId: safeInteger(data, 'userId'),
          username: text(data, 'username'),
          quota: safeInteger(data, 'quota'),
          redeemedTime: safeInteger(data, 'redeemedTime'),
        },
      };
    default:
      throw new UnknownRedemptionEventError(event.type);
  }
}

/** evolve over stored events, for loadAndAppend. */
export function evolveStored(state: RedemptionState, event: EventShape): RedemptionState {
  return evolve(state, toRedemptionEvent(event));
}

export function toNewRedemptionEvent(event: RedemptionEvent, options: { id: string; metadata: MetadataInput }): NewEvent {
  return newEvent(event.type, { ...event.data }, options);
}
