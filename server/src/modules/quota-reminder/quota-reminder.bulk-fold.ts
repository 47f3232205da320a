import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import type { BulkBarrier, BulkFold, BulkRows } from '#projections/runner/bulk-fold';
import { queryPrepared } from '#projections/runner/prepared-query';
import type { ReminderZone } from './quota-reminder';
import { type Balance, NO_BALANCE, quotaAfter, reminderStep, WRITE_STATE } from './quota-reminder.statements';

/** What the fold needs of its projection: the live threshold, the clock, and a word when a crossing was found. */
export interface QuotaReminderFoldContext {
  threshold(): number;
  now(): number;
  /** A crossing went to the outbox: the projector's next afterCommit flushes it. */
  crossed(): void;
}

/**
 * The quota reminder's rebuild from an empty `quota_reminder_balances` (bulk-fold.ts), equal to `apply` one event at
 * a time, which during a rebuild does two things:
 *
 * - folds every account's balance (with the revision guard): here in memory, one row per user at `finish`;
 * - decides (zone, crossing, cursor) only for the events past `quota_reminder_cursor`, the ones the live projector
 *   never decided. Up to the cursor a rebuild decides nothing and mails nothing: that is what keeps a replay from
 *   mailing twice. The zones, the outbox and the cursor are the projection's memory, outside `tables`: a rebuild
 *   does not empty them, so the fold changes in them only what `apply` would.
 *
 * So the fold reads the cursor once, at its first account event (a barrier), and in the usual rebuild (the projector
 * had caught up) every event is at or below it: nothing but the balances. An event past it gets a barrier of its own,
 * which decides it against the zones recorded (read once, at the first such event) and, when its zone moves or it
 * crosses, writes them with the batch path's own WRITE_STATE, as `apply` would, in order. The cursor row is taken
 * out by the first barrier and written back, moved past the last account event, by `finish`: COPY cannot update a
 * row, and both happen in the bulk load's one transaction (an aborted load puts it back).
 */
export class QuotaReminderBulkFold implements BulkFold {
  private readonly balances = new Map<number, Balance>();
  /** The decision cursor, once the first barrier read it (null before: no account event seen). */
  private cursor: number | null = null;
  /** Whether the cursor row existed (apply only moves an existing one). */
  private cursorRow = false;
  /** The position of the last account event handed over (apply moves the cursor to its batch's last). */
  private lastPosition = 0;
  /** The zones recorded, read at the first event past the cursor and kept up to date by the decisions since. */
  private zones: Map<number, ReminderZone> | null = null;

  constructor(private readonly context: QuotaReminderFoldContext) {}

  barrierBefore(event: RecordedEvent): BulkBarrier | null {
    if (streamCategory(event.streamId) !== 'account') return null;
    if (this.cursor === null) {
      return async (manager) => {
        await this.takeCursor(manager);
        await this.decide(event, manager);
      };
    }
    return event.position > this.cursor ? (manager) => this.decide(event, manager) : null;
  }

  add(event: RecordedEvent): void {
    if (streamCategory(event.streamId) !== 'account') return;
    this.lastPosition = event.position;
    const userId = streamKey(event.streamId);
    const stored = this.balances.get(userId);
    const balance = stored ?? NO_BALANCE;
    // apply's revision guard: a rebuild hands each event over once, in order, so it never skips there.
    if (event.revision <= balance.revision) return;
    const after = quotaAfter(event, balance.quota);
    if (stored === undefined) this.balances.set(userId, { quota: after, revision: event.revision });
    else {
      stored.quota = after;
      stored.revision = event.revision;
    }
  }

  /** Nothing is final before the end: a balance changes until the last event. */
  drain(): BulkRows[] {
    return [];
  }

  finish(): BulkRows[] {
    const rows: unknown[][] = [];
    for (const [userId, { quota, revision }] of this.balances) rows.push([userId, quota, revision]);
    this.balances.clear();
    const batches: BulkRows[] = [{ table: 'quota_reminder_balances', columns: ['user_id', 'quota', 'revision'], rows }];
    if (this.cursorRow) {
      // apply's `UPDATE quota_reminder_cursor SET position = $last WHERE position < $last`, batch after batch.
      batches.push({
        table: 'quota_reminder_cursor',
        columns: ['id', 'position'],
        rows: [[1, Math.max(this.cursor ?? 0, this.lastPosition)]],
      });
    }
    return batches;
  }

  /** Reads the cursor and takes its row out until `finish` (apply reads a missing row as 0 and never creates it). */
  private async takeCursor(manager: EntityManager): Promise<void> {
    const rows: Array<{ position: string }> = await manager.query(
      // A SELECT around the DELETE: TypeORM returns a bare DELETE's rows with its count.
      'WITH taken AS (DELETE FROM quota_reminder_cursor WHERE id = 1 RETURNING position) SELECT position FROM taken',
    );
    this.cursorRow = rows.length > 0;
    this.cursor = this.cursorRow ? Number(rows[0].position) : 0;
  }

  /**
   * `apply`'s decision on one event past the cursor (before `add` folds it), from the balance folded so far; writes
   * the zone that moved and the crossing with WRITE_STATE (no balances: `finish` writes them; its cursor update finds
   * no row while the fold holds it).
   */
  private async decide(event: RecordedEvent, manager: EntityManager): Promise<void> {
    if (event.position <= (this.cursor ?? 0)) return;
    const userId = streamKey(event.streamId);
    const balance = this.balances.get(userId) ?? NO_BALANCE;
    if (event.revision <= balance.revision) return;
    const after = quotaAfter(event, balance.quota);
    this.zones ??= await recordedZones(manager);
    const step = reminderStep(event, this.zones.get(userId) ?? null, balance.quota, after, this.context.threshold(), this.context.now());
    this.zones.set(userId, step.zone);
    if (!step.moved && !step.mail) return;
    if (step.mail) this.context.crossed();
    const mails = step.mail ? [[event.id], [userId], [step.mail], [after]] : [[], [], [], []];
    await queryPrepared(manager, WRITE_STATE, [
      [],
      [],
      [],
      ...(step.moved ? [[userId], [step.zone], [event.position]] : [[], [], []]),
      ...mails,
      event.position,
    ]);
  }
}

async function recordedZones(manager: EntityManager): Promise<Map<number, ReminderZone>> {
  const rows: Array<{ user_id: number; zone: number }> = await manager.query('SELECT user_id, zone FROM quota_reminders');
  return new Map(rows.map((row) => [row.user_id, row.zone as ReminderZone]));
}
