import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import { type ChannelState, evolve } from './channel.decider';
import { type AutoDecision, type ChannelEvent, isChannelEventType } from './channel.events';

export class UnknownChannelEventError extends Error {
  readonly code = 'unknown_channel_event';
  constructor(type: string) {
    super(`Channel streams hold an event of unknown type "${type}": teach channel.decider evolve() about it`);
  }
}

function num(data: Record<string, unknown>, key: string): number {
  const value = data[key];
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new Error(`Channel event field ${key} is not a number: ${JSON.stringify(value)}`);
  return value;
}

function text(data: Record<string, unknown>, key: string): string {
  const value = data[key];
  return typeof value === 'string' ? value : '';
}

function decision(data: Record<string, unknown>): AutoDecision {
  const evidence = data.evidence;
  return {
    reasonCode: text(data, 'reasonCode'),
    message: text(data, 'message'),
    evidence: evidence && typeof evidence === 'object' && !Array.isArray(evidence) ? (evidence as Record<string, unknown>) : {},
  };
}

/** The domain event inside a stored (or about-to-be-stored) event, with its fields checked. */
export function toChannelEvent(event: EventShape): ChannelEvent {
  const data = (event.data ?? {}) as Record<string, unknown>;
  if (!isChannelEventType(event.type)) throw new UnknownChannelEventError(event.type);
  switch (event.type) {
    case 'ChannelEnabled':
    case 'ChannelDisabled':
      return { type: event.type, data: { previousStatus: num(data, 'previousStatus') } };
    case 'ChannelAutoDisabled':
    case 'ChannelAutoEnabled':
      return { type: event.type, data: decision(data) };
    case 'ChannelTested':
      return {
        type: 'ChannelTested',
        data: {
          ok: data.ok === true,
          responseTimeMs: num(data, 'responseTimeMs'),
          model: text(data, 'model'),
          error: typeof data.error === 'string' ? data.error : null,
        },
      };
    case 'ChannelBalanceUpdated':
      return { type: 'ChannelBalanceUpdated', data: { balance: num(data, 'balance') } };
  }
}

/** evolve over stored events, for loadAndAppend. */
export function evolveStored(state: ChannelState, event: EventShape): ChannelState {
  return evolve(state, toChannelEvent(event));
}

export function toNewChannelEvent(event: ChannelEvent, options: { id: string; metadata: MetadataInput }): NewEvent {
  return newEvent(event.type, { ...event.data } as Record<string, unknown>, options);
}
