import type { EventShape } from '../../ledger/aggregate-repository';
import { type MetadataInput, newEvent } from '../../ledger/event-envelope';
import type { NewEvent } from '../../ledger/event-store.port';
import { type AccountState, applyQuotaConsumed, evolve } from './account.decider';
import { type AccountEvent, isAccountEventType, type LogAnnotation, type QuotaGrantKind } from './account.events';
import { QUOTA_CONSUMED } from './quota-consumed.event';
import { quotaConsumedQuota } from './quota-consumed-event-codec';

const GRANT_KINDS: readonly string[] = ['new_user', 'invitee_gift', 'root_initial'] satisfies QuotaGrantKind[];

/** A stored account event whose type this code does not know: deciding against it would be deciding blind. */
export class UnknownAccountEventError extends Error {
  readonly code = 'unknown_account_event';
  constructor(type: string) {
    super(`Account streams hold an event of unknown type "${type}": teach account.decider evolve() about it`);
  }
}

function amount(data: Record<string, unknown>, key: string): number {
  const value = data[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new Error(`Account event field ${key} is not a safe integer: ${JSON.stringify(value)}`);
  }
  return value;
}

function text(data: Record<string, unknown>, key: string): string {
  const value = data[key];
  if (typeof value !== 'string') throw new Error(`Account event field ${key} is not a string: ${JSON.stringify(value)}`);
  return value;
}

function finite(data: Record<string, unknown>, key: string): number {
  const value = data[key];
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new Error(`Account event field ${key} is not a finite number: ${JSON.stringify(value)}`);
  }
  return value;
}

/** The domain event inside a stored (or about-to-be-stored) event, with its fields checked. */
export function toAccountEvent(event: EventShape): AccountEvent {
  const data = event.data as Record<string, unknown>;
  if (!isAccountEventType(event.type)) throw new UnknownAccountEventError(event.type);
  switch (event.type) {
    case 'QuotaGranted':
      if (!GRANT_KINDS.includes(data.kind as string)) throw new Error(`QuotaGranted has an unknown kind ${JSON.stringify(data.kind)}`);
      return { type: 'QuotaGranted', data: { amount: amount(data, 'amount'), kind: data.kind as QuotaGrantKind } };
    case 'InviterRewarded':
      return { type: 'InviterRewarded', data: { amount: amount(data, 'amount'), inviteeId: amount(data, 'inviteeId') } };
    case 'AffiliateQuotaTransferred':
      return { type: 'AffiliateQuotaTransferred', data: { amount: amount(data, 'amount') } };
    case 'QuotaAdjustedByAdmin':
      return {
        type: 'QuotaAdjustedByAdmin',
        data: { before: amount(data, 'before'), after: amount(data, 'after'), adminId: amount(data, 'adminId') },
      };
    case 'QuotaRedeemed':
      return { type: 'QuotaRedeemed', data: { amount: amount(data, 'amount'), redemptionId: amount(data, 'redemptionId') } };
    case 'QuotaToppedUp':
      return {
        type: 'QuotaToppedUp',
        data: {
          amount: amount(data, 'amount'),
          tradeNo: text(data, 'tradeNo'),
          money: finite(data, 'money'),
          paymentMethod: text(data, 'paymentMethod'),
        },
      };
    case 'QuotaRefunded':
      if (data.platform !== 'midjourney' && data.platform !== 'suno') {
        throw new Error(`QuotaRefunded has an unknown platform ${JSON.stringify(data.platform)}`);
      }
      if (typeof data.tokenUnlimited !== 'boolean') throw new Error('QuotaRefunded field tokenUnlimited is not a boolean');
      return {
        type: 'QuotaRefunded',
        data: {
          amount: amount(data, 'amount'),
          tokenId: amount(data, 'tokenId'),
          tokenUnlimited: data.tokenUnlimited,
          reason: text(data, 'reason'),
          taskId: text(data, 'taskId'),
          upstreamTaskId: text(data, 'upstreamTaskId'),
          platform: data.platform,
        },
      };
  }
}

/** The annotation the logs projection words its rows from (see LogAnnotation). */
export function logAnnotationOf(event: EventShape): LogAnnotation {
  const data = event.data as Partial<LogAnnotation>;
  return {
    username: typeof data.username === 'string' ? data.username : '',
    quotaDisplay: data.quotaDisplay ?? { inCurrency: true, quotaPerUnit: 500000 },
  };
}

/** evolve over stored events, for loadAndAppend: the account's own events and the relay's charges. */
export function evolveStored(state: AccountState, event: EventShape): AccountState {
  if (event.type === QUOTA_CONSUMED) return applyQuotaConsumed(state, amount({ quota: quotaConsumedQuota(event.data) }, 'quota'));
  return evolve(state, toAccountEvent(event));
}

/** A decided domain event as a ledger event: domain data plus the log annotation, with its id and metadata. */
export function toNewAccountEvent(
  event: AccountEvent,
  options: { id: string; metadata: MetadataInput; annotation: LogAnnotation },
): NewEvent {
  const data = { ...event.data, username: options.annotation.username, quotaDisplay: options.annotation.quotaDisplay };
  return newEvent(event.type, data, { id: options.id, metadata: options.metadata });
}
