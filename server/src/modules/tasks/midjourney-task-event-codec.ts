import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import { type MidjourneyTaskEvent, MidjourneyTaskEventType, type MidjourneyTaskProgress } from './midjourney-task.events';
import { evolve, type MidjourneyTaskState } from './midjourney-task.state';

function field<T>(data: Record<string, unknown>, key: string, ok: (value: unknown) => boolean, what: string): T {
  const value = data[key];
  if (!ok(value)) throw new Error(`Midjourney task event field ${key} is not ${what}: ${JSON.stringify(value)}`);
  return value as T;
}
const int = (data: Record<string, unknown>, key: string) =>
  field<number>(data, key, (value) => typeof value === 'number' && Number.isSafeInteger(value), 'a safe integer');
const text = (data: Record<string, unknown>, key: string) => field<string>(data, key, (value) => typeof value === 'string', 'a string');
const bool = (data: Record<string, unknown>, key: string) => field<boolean>(data, key, (value) => typeof value === 'boolean', 'a boolean');

function progress(data: Record<string, unknown>): MidjourneyTaskProgress {
  return {
    code: int(data, 'code'),
    promptEn: text(data, 'promptEn'),
    description: text(data, 'description'),
    state: text(data, 'state'),
    submitTime: int(data, 'submitTime'),
    startTime: int(data, 'startTime'),
    finishTime: int(data, 'finishTime'),
    imageUrl: text(data, 'imageUrl'),
    status: text(data, 'status'),
    progress: text(data, 'progress'),
    failReason: text(data, 'failReason'),
    buttons: text(data, 'buttons'),
    properties: text(data, 'properties'),
  };
}

export const isMidjourneyTaskEventType = (type: string): boolean => (Object.values(MidjourneyTaskEventType) as string[]).includes(type);

/** The domain event inside a stored (or about-to-be-stored) task event, with its fields checked. */
export function toMidjourneyTaskEvent(event: EventShape): MidjourneyTaskEvent {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'MidjourneyTaskSubmitted':
      return {
        type: 'MidjourneyTaskSubmitted',
        data: {
          ...progress(data),
          taskId: text(data, 'taskId'),
          userId: int(data, 'userId'),
          username: text(data, 'username'),
          tokenId: int(data, 'tokenId'),
          tokenUnlimited: bool(data, 'tokenUnlimited'),
          channelId: int(data, 'channelId'),
          action: text(data, 'action'),
          mjId: text(data, 'mjId'),
          prompt: text(data, 'prompt'),
          quota: int(data, 'quota'),
        },
      };
    case 'MidjourneyTaskUpdated':
      return { type: 'MidjourneyTaskUpdated', data: progress(data) };
    default:
      throw new Error(
        `Midjourney task streams hold an event of unknown type "${event.type}": teach midjourney-task.state evolve() about it`,
      );
  }
}

export function evolveStored(state: MidjourneyTaskState, event: EventShape): MidjourneyTaskState {
  return evolve(state, toMidjourneyTaskEvent(event));
}

export function toNewMidjourneyTaskEvent(event: MidjourneyTaskEvent, options: { id: string; metadata: MetadataInput }): NewEvent {
  return newEvent(event.type, { ...event.data }, { id: options.id, metadata: options.metadata });
}
