import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import type { SunoTaskEvent, SunoTaskProgress } from './suno-task.events';
import { evolveSuno, type SunoTaskState } from './suno-task.state';

function field<T>(data: Record<string, unknown>, key: string, ok: (value: unknown) => boolean, what: string): T {
  const value = data[key];
  if (!ok(value)) throw new Error(`Suno task event field ${key} is not ${what}: ${JSON.stringify(value)}`);
  return value as T;
}
const int = (data: Record<string, unknown>, key: string) =>
  field<number>(data, key, (value) => typeof value === 'number' && Number.isSafeInteger(value), 'a safe integer');
const text = (data: Record<string, unknown>, key: string) => field<string>(data, key, (value) => typeof value === 'string', 'a string');
const bool = (data: Record<string, unknown>, key: string) => field<boolean>(data, key, (value) => typeof value === 'boolean', 'a boolean');

function progress(data: Record<string, unknown>): SunoTaskProgress {
  return {
    status: text(data, 'status'),
    failReason: text(data, 'failReason'),
    submitTime: int(data, 'submitTime'),
    startTime: int(data, 'startTime'),
    finishTime: int(data, 'finishTime'),
    progress: text(data, 'progress'),
    data: text(data, 'data'),
  };
}

/** The domain event inside a stored (or about-to-be-stored) Suno task event, with its fields checked. */
export function toSunoTaskEvent(event: EventShape): SunoTaskEvent {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'SunoTaskSubmitted':
      return {
        type: 'SunoTaskSubmitted',
        data: {
          ...progress(data),
          taskId: text(data, 'taskId'),
          upstreamTaskId: text(data, 'upstreamTaskId'),
          userId: int(data, 'userId'),
          username: text(data, 'username'),
          tokenId: int(data, 'tokenId'),
          tokenUnlimited: bool(data, 'tokenUnlimited'),
          channelId: int(data, 'channelId'),
          action: text(data, 'action'),
          quota: int(data, 'quota'),
          properties: text(data, 'properties'),
        },
      };
    case 'SunoTaskUpdated':
      return { type: 'SunoTaskUpdated', data: progress(data) };
    default:
      throw new Error(`Suno task streams hold an event of unknown type "${event.type}": teach suno-task.state evolveSuno() about it`);
  }
}

export function evolveStoredSuno(state: SunoTaskState, event: EventShape): SunoTaskState {
  return evolveSuno(state, toSunoTaskEvent(event));
}

export function toNewSunoTaskEvent(event: SunoTaskEvent, options: { id: string; metadata: MetadataInput }): NewEvent {
  return newEvent(event.type, { ...event.data }, { id: options.id, metadata: options.metadata });
}
