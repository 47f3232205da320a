import type { QuotaConsumedData } from './quota-consumed.event';

/**
 * What the positional shapes of a stored QuotaConsumed (v2: quota-consumed-v2.ts, v3: quota-consumed-v3.ts;
 * docs/ledger.md "QuotaConsumed as stored") share: the facts as one JSON array, by position, inside a jsonb string.
 * quota-consumed-event-codec.ts is their only user: it picks the shape, wraps the text as `{"v2": …}` or
 * `{"v3": …}`, and derives the envelope. Both shapes are read forever.
 */

/** What the positional shapes leave out because the event says it elsewhere, or what the envelope adds. */
export interface PositionalContext {
  /** The event id: the request id when row[requestId] is 0. */
  id: string;
  /** From the stream `account-{userId}`. */
  userId: number;
}

/** A stored array that is not one of these shapes: the codec turns it into a MalformedQuotaConsumedError. */
export class PositionalError extends Error {}

/** The decoded facts plus the two envelope facts the array holds. */
export interface PositionalDecoded {
  data: QuotaConsumedData;
  role: number;
  clientIp: string | null;
}

/** The five booleans of a charge as one bit field (the same bits in v2 and v3). */
const FLAG = { tokenUnlimited: 1, isStream: 2, logConsumeOff: 4, dataExportOff: 8, billingCapped: 16 } as const;

/** The bit field of a charge's booleans; `logConsume` and `dataExport` only when false, `billingCapped` only when true. */
export function flagsOf(data: QuotaConsumedData): number {
  return (
    (data.tokenUnlimited ? FLAG.tokenUnlimited : 0) |
    (data.isStream ? FLAG.isStream : 0) |
    (data.logConsume === false ? FLAG.logConsumeOff : 0) |
    (data.dataExport === false ? FLAG.dataExportOff : 0) |
    (data.billingCapped === true ? FLAG.billingCapped : 0)
  );
}

/** Sets the decoded booleans from the bit field; the optional ones only when they differ from their absence. */
export function applyFlags(result: QuotaConsumedData, flags: number): void {
  result.tokenUnlimited = (flags & FLAG.tokenUnlimited) !== 0;
  result.isStream = (flags & FLAG.isStream) !== 0;
  if (flags & FLAG.logConsumeOff) result.logConsume = false;
  if (flags & FLAG.dataExportOff) result.dataExport = false;
  if (flags & FLAG.billingCapped) result.billingCapped = true;
}

/**
 * The Unix second a charge's `createdAt` is counted from: the time inside its event id when that id is the request
 * id and a UUID v7 (the relay's: made when the request arrived, so the admission time is that second or the next),
 * else 0 (createdAt stored whole). Saves the ten digits of a timestamp the id already carries, exactly.
 */
export function admissionBase(eventId: string, requestIdIsId: boolean): number {
  if (!requestIdIsId || eventId[14] !== '7') return 0;
  return Math.floor(parseInt(eventId.slice(0, 8) + eventId.slice(9, 13), 16) / 1000);
}

/**
 * Typed reads of one stored array. JSON writes a number that is not finite (NaN) and an absent string as null: read
 * back as NaN and '', which the readers' checks treat as they treated v1's null or missing key (a fallback, or a
 * refused quota). Any other type is a corrupt payload.
 */
export class Fields {
  constructor(
    private readonly row: unknown[],
    /** The value of each position the array may leave out (v3's trailing defaults); none for v2. */
    private readonly defaults: readonly unknown[] = [],
  ) {}

  at(index: number): unknown {
    return index < this.row.length ? this.row[index] : this.defaults[index];
  }

  num(index: number): number {
    const value = this.at(index);
    if (value === null) return NaN;
    if (typeof value !== 'number') throw new PositionalError(`field ${index} is not a number`);
    return value;
  }

  str(index: number): string {
    const value = this.at(index);
    if (value === null) return '';
    if (typeof value !== 'string') throw new PositionalError(`field ${index} is not a string`);
    return value;
  }

  /** A string stored only when it differs from `same` (0 otherwise). */
  strOr(index: number, same: string): string {
    return this.at(index) === 0 ? same : this.str(index);
  }

  /** The channel path: 0 for [channelId], else a list of ids. */
  path(index: number, channelId: number): number[] {
    const stored = this.at(index);
    if (stored === 0) return [channelId];
    if (Array.isArray(stored) && stored.every((id) => typeof id === 'number')) return stored as number[];
    throw new PositionalError('channel path is neither 0 nor a list of ids');
  }
}

/** The array of a v2 or v3 text, with at least its required fields (longer arrays come from a later writer that appended fields). */
export function parseRow(text: string, minLength: number, shape: string): unknown[] {
  let row: unknown;
  try {
    row = JSON.parse(text);
  } catch {
    throw new PositionalError(`${shape} is not JSON`);
  }
  if (!Array.isArray(row) || row.length < minLength) {
    throw new PositionalError(`${shape} is not an array of its fields`);
  }
  return row;
}

export const samePath = (data: QuotaConsumedData) => data.channelPath.length === 1 && data.channelPath[0] === data.channelId;

/** The element at `index` of a v2 or v3 text (the amount, for the account decider's fold), unchecked. */
export function positionalField(text: string, index: number): unknown {
  try {
    const row: unknown = JSON.parse(text);
    return Array.isArray(row) ? row[index] : undefined;
  } catch {
    return undefined;
  }
}
