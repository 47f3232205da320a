import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { AccountEvent } from '#server/modules/accounts/account.events';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { applyQuotaConsumed, evolve, initialAccountState } from '#server/modules/accounts/account.state';
import { type ChargeEndReason, QUOTA_CONSUMED, type UsageSource } from '#server/modules/accounts/quota-consumed.event';
import {
  CANONICAL_UUID,
  quotaConsumedEndReason,
  quotaConsumedMetadata,
  quotaConsumedRecord,
  quotaConsumedUsageSource,
  RELAY_REQUEST_REASON,
} from '#server/modules/accounts/quota-consumed-event-codec';
import { CHARGE_END_REASONS, USAGE_SOURCES } from '#server/modules/accounts/quota-consumed.event';

/** What a line points at: the redemption code, the token and model of a charge, the invitee of a reward … */
export type StatementRef = Record<string, string | number>;

interface KindEntry<E> {
  kind: string;
  ref: (data: E) => StatementRef;
}

type AccountEntries = { [T in AccountEvent['type']]: KindEntry<Extract<AccountEvent, { type: T }>['data']> };

/** The relay charge's fields a statement line shows (QuotaConsumedData, checked). */
export interface ChargeFacts {
  quota: number;
  tokenId: number;
  tokenName: string;
  modelName: string;
  /** Absent on charges recorded before the relay wrote them. */
  usageSource?: UsageSource;
  endReason?: ChargeEndReason;
}

/**
 * The one table from account event type to statement kind and reference. The amount and the balance are not
 * here: they come from account.state's `evolve` (and applyQuotaConsumed), the fold the command side decides with,
 * so a line's balance is the account-balances quota by construction. A new account event is one entry here (the
 * mapped type makes it a compile error to forget it); its effect on quota is evolve's business.
 *
 * InviterRewarded credits pending invite earnings (aff_quota), not quota: it is shown with delta 0 so the
 * statement explains where the later affiliate transfer came from; the reward itself is in `ref.aff_amount`.
 */
export const ACCOUNT_STATEMENT_KINDS: AccountEntries = {
  QuotaGranted: { kind: 'gift', ref: (data) => ({ grant: data.kind }) },
  InviterRewarded: { kind: 'invite_reward', ref: (data) => ({ invitee_id: data.inviteeId, aff_amount: data.amount }) },
  AffiliateQuotaTransferred: { kind: 'affiliate_transfer', ref: () => ({}) },
  QuotaAdjustedByAdmin: { kind: 'admin_adjustment', ref: (data) => ({ before: data.before, after: data.after }) },
  QuotaRedeemed: { kind: 'redemption', ref: (data) => ({ code_id: data.redemptionId }) },
  QuotaToppedUp: {
    kind: 'topup',
    ref: (data) => ({ trade_no: data.tradeNo, money: data.money, payment_method: data.paymentMethod }),
  },
  QuotaRefunded: {
    kind: 'refund',
    ref: (data) => ({ task_id: data.taskId, platform: data.platform, token_id: data.tokenId, reason: data.reason }),
  },
};

/**
 * The relay's QuotaConsumed (not an AccountEvent: the settlement appends it). Its reference says where the counts
 * came from (`usage_source`) and why the request ended (`end_reason`) when the charge records them.
 */
export const CHARGE_STATEMENT_KIND: KindEntry<ChargeFacts> = {
  kind: 'relay_charge',
  ref: (charge) => {
    const ref: StatementRef = { token_id: charge.tokenId, token_name: charge.tokenName, model: charge.modelName };
    if (charge.usageSource !== undefined) ref.usage_source = charge.usageSource;
    if (charge.endReason !== undefined) ref.end_reason = charge.endReason;
    return ref;
  },
};

/** Every kind a line can have, for the `kind` filter. */
export const STATEMENT_KINDS: readonly string[] = [
  ...new Set([...Object.values(ACCOUNT_STATEMENT_KINDS).map((entry) => entry.kind), CHARGE_STATEMENT_KIND.kind]),
];

export interface StatementLine {
  /** The event's ledger position: the line's id, and its order. */
  position: number;
  userId: number;
  /** The event's revision in `account-{userId}` (the replay guard). */
  revision: number;
  /** Unix seconds: the ledger time of the event. */
  createdAt: number;
  kind: string;
  delta: number;
  balance: number;
  actorType: 'user' | 'system';
  actorId: number | null;
  actorRole: number | null;
  reason: string;
  requestId: string;
  ref: StatementRef;
  /** A relay charge's facts, stored in columns of their own rather than as `ref` (see statementLineValues). */
  charge: ChargeFacts | null;
}

function safeInteger(data: Record<string, unknown>, key: string): number {
  const value = data[key];
  if (typeof value !== 'number' || !Number.isSafeInteger(value))
    throw new Error(`QuotaConsumed.${key} is not a safe integer: ${JSON.stringify(value)}`);
  return value;
}

/** Longest text kept in a line (a model or token name, a reason): longer is cut rather than failing the projection. */
const TEXT_WIDTH = 255;

/** Text Postgres can store (no NUL, which neither text nor jsonb accepts) and at most TEXT_WIDTH characters. */
export function storableText(value: unknown): string {
  if (typeof value !== 'string') return '';
  const clean = value.includes('\u0000') ? value.replace(/\u0000/g, '') : value;
  // At most TEXT_WIDTH UTF-16 units is at most TEXT_WIDTH code points: nothing to cut, no array of characters.
  if (clean.length <= TEXT_WIDTH) return clean;
  const chars = Array.from(clean);
  return chars.length > TEXT_WIDTH ? chars.slice(0, TEXT_WIDTH).join('') : clean;
}

/** The facts of a relay charge a line needs; throws on a quota that is not a safe integer (the projection stops on it). */
export function chargeFacts(data: Record<string, unknown>): ChargeFacts {
  const facts: ChargeFacts = {
    quota: safeInteger(data, 'quota'),
    tokenId: typeof data.tokenId === 'number' ? data.tokenId : 0,
    tokenName: storableText(data.tokenName),
    modelName: storableText(data.modelName),
  };
  const usageSource = quotaConsumedUsageSource(data);
  if (usageSource !== undefined) facts.usageSource = usageSource;
  const endReason = quotaConsumedEndReason(data);
  if (endReason !== undefined) facts.endReason = endReason;
  return facts;
}

/** The line of `event`: its envelope (actor, reason, request id) with the kind, amounts and reference given. */
function lineOf(
  event: RecordedEvent,
  userId: number,
  kind: string,
  delta: number,
  balance: number,
  ref: StatementRef,
  charge: ChargeFacts | null = null,
): StatementLine {
  // A relay charge's envelope is derived from its compact payload (v2 stores no metadata): the codec says it.
  const metadata = event.type === QUOTA_CONSUMED ? quotaConsumedMetadata(event) : event.metadata;
  const actor = metadata?.actor;
  const user = actor?.type === 'user';
  // Written out rather than spread from an envelope object: one object per line (the rebuild makes a line per event).
  return {
    position: event.position,
    userId,
    revision: event.revision,
    createdAt: Math.floor(event.createdAt.getTime() / 1000),
    kind,
    delta,
    balance,
    actorType: user ? 'user' : 'system',
    actorId: user ? actor.userId : null,
    actorRole: user ? actor.role : null,
    reason: storableText(metadata?.reasonCode),
    requestId: storableText(metadata?.correlationId),
    ref,
    charge,
  };
}

/** The line of a relay charge taking the balance from `previous`. */
export function chargeLine(event: RecordedEvent, userId: number, charge: ChargeFacts, previous: number): StatementLine {
  const balance = applyQuotaConsumed({ ...initialAccountState, quota: previous }, charge.quota).quota;
  return lineOf(event, userId, CHARGE_STATEMENT_KIND.kind, balance - previous, balance, CHARGE_STATEMENT_KIND.ref(charge), charge);
}

/**
 * The line of any account-stream event the statement handles, given the balance before it (0 for the stream's
 * first): its delta is what `evolve` did to quota, so an admin edit (which sets quota) shows the change it made.
 */
export function statementLine(event: RecordedEvent, userId: number, previous: number): StatementLine {
  if (event.type === QUOTA_CONSUMED) return chargeLine(event, userId, chargeFacts(quotaConsumedRecord(event)), previous);
  const domain = toAccountEvent(event);
  const balance = evolve({ ...initialAccountState, quota: previous }, domain).quota;
  const entry = ACCOUNT_STATEMENT_KINDS[domain.type] as KindEntry<AccountEvent['data']>;
  return lineOf(event, userId, entry.kind, balance - previous, balance, entry.ref(domain.data));
}

/** statement_lines' columns, in the order statementLineValues gives a line's values. */
export const STATEMENT_COLUMNS = [
  'position',
  'user_id',
  'revision',
  'created_at',
  'kind',
  'delta',
  'balance',
  'actor_type',
  'actor_id',
  'actor_role',
  'reason',
  'request_id',
  'ref',
  'token_id',
  'token_name',
  'model',
  'usage_source',
  'end_reason',
  'request_uuid',
] as const;

/** A relay charge's columns as stored: the compact form of its `ref` (statementLineValues, chargeRefOf). */
export interface ChargeColumns {
  token_id: number | null;
  token_name: string | null;
  model: string | null;
  /** USAGE_SOURCES index, null when the charge did not record it. */
  usage_source: number | null;
  /** CHARGE_END_REASONS index, null when the charge did not record it. */
  end_reason: number | null;
}

const INT4_MAX = 2_147_483_647;

/** A charge's facts fit the compact columns when its token id is an int4 (always, but for a malformed old event). */
function compactable(charge: ChargeFacts | null): charge is ChargeFacts {
  return charge !== null && Number.isInteger(charge.tokenId) && Math.abs(charge.tokenId) <= INT4_MAX;
}

/**
 * The `ref` a compact charge line's columns stand for: exactly CHARGE_STATEMENT_KIND.ref of its facts (the reader's
 * side of statementLineValues). Older lines, stored before the columns existed, carry their `ref` whole instead.
 */
export function chargeRefOf(columns: ChargeColumns): StatementRef {
  const usageSource = columns.usage_source === null ? undefined : USAGE_SOURCES[columns.usage_source];
  const endReason = columns.end_reason === null ? undefined : CHARGE_END_REASONS[columns.end_reason];
  return CHARGE_STATEMENT_KIND.ref({
    quota: 0, // not part of the reference
    tokenId: columns.token_id ?? 0,
    tokenName: columns.token_name ?? '',
    modelName: columns.model ?? '',
    ...(usageSource === undefined ? {} : { usageSource }),
    ...(endReason === undefined ? {} : { endReason }),
  });
}

/**
 * A line's values in the column order of STATEMENT_COLUMNS: apply's insert parameters and the rebuild's COPY row.
 *
 * A relay charge (nearly every line) is stored compact: no `ref` object, whose key names and the charge's words
 * would be repeated on every line, but its token id, token and model names in columns, its usage source and end
 * reason as the index of their word (as the v3 event stores them), and no `reason` when it is the relay's own
 * (`relay_request`, which every compact charge event implies). The reader gives them back as the same `ref` and
 * `reason` (chargeRefOf). Every other line has its `ref` (an object: apply's insert sends it as JSON text) and
 * null in the charge columns. A request id that is a uuid as Postgres writes one (the relay's are) is stored as a
 * `uuid` (16 bytes instead of 37) and read back as the same text; any other stays in `request_id`.
 */
export function statementLineValues(line: StatementLine): unknown[] {
  const charge = line.charge;
  const compact = compactable(charge);
  const uuid = CANONICAL_UUID.test(line.requestId);
  // Written out, one array per line (the rebuild makes a line per event).
  return [
    line.position,
    line.userId,
    line.revision,
    line.createdAt,
    line.kind,
    line.delta,
    line.balance,
    line.actorType,
    line.actorId,
    line.actorRole,
    compact && line.reason === RELAY_REQUEST_REASON ? null : line.reason,
    uuid ? null : line.requestId,
    compact ? null : line.ref,
    compact ? charge.tokenId : null,
    compact ? charge.tokenName : null,
    compact ? charge.modelName : null,
    compact && charge.usageSource !== undefined ? USAGE_SOURCES.indexOf(charge.usageSource) : null,
    compact && charge.endReason !== undefined ? CHARGE_END_REASONS.indexOf(charge.endReason) : null,
    uuid ? line.requestId : null,
  ];
}
