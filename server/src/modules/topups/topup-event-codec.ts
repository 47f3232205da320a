import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import { isPaymentMethod, type TopUpEvent, TopUpEventType } from './topup.events';
import { evolve, type TopUpState } from './topup.state';

export class UnknownTopUpEventError extends Error {
  readonly code = 'unknown_topup_event';
  constructor(type: string) {
    super(`Top-up order streams hold an event of unknown type "${type}": teach topup.state evolve() about it`);
  }
}

function field(data: Record<string, unknown>, key: string, ok: (value: unknown) => boolean, what: string): unknown {
  const value = data[key];
  if (!ok(value)) throw new Error(`Top-up event field ${key} is not ${what}: ${JSON.stringify(value)}`);
  return value;
}

const safeInteger = (data: Record<string, unknown>, key: string) =>
  field(data, key, (value) => typeof value === 'number' && Number.isSafeInteger(value), 'a safe integer') as number;
const money = (data: Record<string, unknown>, key: string) =>
  field(data, key, (value) => typeof value === 'number' && Number.isFinite(value), 'a finite number') as number;
const text = (data: Record<string, unknown>, key: string) => field(data, key, (value) => typeof value === 'string', 'a string') as string;

export const isTopUpEventType = (type: string): boolean => (Object.values(TopUpEventType) as string[]).includes(type);

/** The domain event inside a stored (or about-to-be-stored) top-up event, with its fields checked. */
export function toTopUpEvent(event: EventShape): TopUpEvent {
  const data = event.data as Record<string, unknown>;
  switch (event.type) {
    case 'TopUpOrdered': {
      const paymentMethod = text(data, 'paymentMethod');
      if (!isPaymentMethod(paymentMethod)) throw new Error(`TopUpOrdered has an unknown payment method ${JSON.stringify(paymentMethod)}`);
      return {
        type: 'TopUpOrdered',
        data: {
          tradeNo: text(data, 'tradeNo'),
          userId: safeInteger(data, 'userId'),
          username: text(data, 'username'),
          amount: safeInteger(data, 'amount'),
          quota: safeInteger(data, 'quota'),
          money: money(data, 'money'),
          paymentMethod,
          createdTime: safeInteger(data, 'createdTime'),
        },
      };
    }
    case 'TopUpPaid':
      return {
        type: 'TopUpPaid',
        data: { money: money(data, 'money'), gatewayTradeNo: text(data, 'gatewayTradeNo'), paidTime: safeInteger(data, 'paidTime') },
      };
    case 'TopUpFailed':
      if (data.reason !== 'money_mismatch') throw new Error(`TopUpFailed has an unknown reason ${JSON.stringify(data.reason)}`);
      return {
        type: 'TopUpFailed',
        data: {
          reason: 'money_mismatch',
          money: money(data, 'money'),
          gatewayTradeNo: text(data, 'gatewayTradeNo'),
          failedTime: safeInteger(data, 'failedTime'),
        },
      };
    default:
      throw new UnknownTopUpEventError(event.type);
  }
}

/** evolve over stored events, for loadAndAppend. */
export function evolveStored(state: TopUpState, event: EventShape): TopUpState {
  return evolve(state, toTopUpEvent(event));
}

export function toNewTopUpEvent(event: TopUpEvent, options: { id: string; metadata: MetadataInput }): NewEvent {
  return newEvent(event.type, { ...event.data }, options);
}
