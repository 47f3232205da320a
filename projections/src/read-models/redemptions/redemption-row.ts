import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { RedemptionStatusValue } from '#server/modules/redemptions/redemption.events';
import { toRedemptionEvent } from '#server/modules/redemptions/redemption-event-codec';
import { evolve, initialRedemptionState, type RedemptionState } from '#server/modules/redemptions/redemption.state';

/** The columns of `redemptions`, in the order apply's INSERT and the bulk fold's COPY write them. */
export const REDEMPTION_COLUMNS = [
  'id',
  'user_id',
  'key',
  'status',
  'name',
  'quota',
  'created_time',
  'redeemed_time',
  'used_user_id',
  'deleted_at',
  'revision',
] as const;

/** A `redemptions` row: as Postgres returns it (bigint columns as text) or as the bulk fold holds it (numbers). */
export interface RedemptionRow {
  id: number;
  user_id: number;
  key: string;
  status: number;
  name: string;
  quota: string | number;
  created_time: string | number;
  redeemed_time: string | number;
  used_user_id: number;
  deleted_at: Date | null;
  revision: number;
}

function stateOf(row: RedemptionRow): RedemptionState {
  return {
    issued: true,
    id: row.id,
    key: row.key,
    name: row.name,
    quota: Number(row.quota),
    creatorId: row.user_id,
    createdTime: Number(row.created_time),
    status: row.status as RedemptionStatusValue,
    usedUserId: row.used_user_id,
    redeemedTime: Number(row.redeemed_time),
    deleted: row.deleted_at !== null,
  };
}

/**
 * Pure: the row of redemption `id` once `event` (of its stream `redemption-{id}`) is folded into `row` (undefined:
 * none yet), with the same `evolve` the command side decides with; null when the row already holds the event's
 * revision (the runner applies each event once; this only keeps a hand-run replay from applying one twice). The
 * soft-delete time is the deletion event's own time, kept once set. What apply upserts and the bulk fold holds.
 */
export function redemptionRowAfter(row: RedemptionRow | undefined, id: number, event: RecordedEvent): RedemptionRow | null {
  if (row && row.revision >= event.revision) return null;
  const next = evolve(row ? stateOf(row) : initialRedemptionState, toRedemptionEvent(event));
  return {
    id,
    user_id: next.creatorId,
    key: next.key,
    status: next.status,
    name: next.name,
    quota: next.quota,
    created_time: next.createdTime,
    redeemed_time: next.redeemedTime,
    used_user_id: next.usedUserId,
    deleted_at: row?.deleted_at ?? (next.deleted ? event.createdAt : null),
    revision: event.revision,
  };
}
