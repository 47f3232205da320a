import { Inject, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { AccountEventType, QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { decodeEvent } from '#projections/runner/batch-folds';
import { queryPrepared } from '#projections/runner/prepared-query';
import type { BulkFold } from '#projections/runner/bulk-fold';
import type { Projection } from '#projections/runner/projection';
import { ReadModelProjection } from '#projections/runner/read-model-projection.decorator';
import { OptionsService } from '../options/options.service';
import type { ReminderKind, ReminderZone } from './quota-reminder';
import { QuotaReminderBulkFold } from './quota-reminder.bulk-fold';
import { QuotaReminderMailer, REMINDER_FLUSH_LIMIT } from './quota-reminder-mailer';
import { type Balance, NO_BALANCE, quotaAfter, READ_STATE, reminderStep, WRITE_STATE } from './quota-reminder.statements';

/** The wall clock, injectable so a spec can age events; only the freshness guard reads it. */
export const REMINDER_CLOCK = Symbol('REMINDER_CLOCK');

interface StateRow {
  user_id: number;
  quota: string | null;
  revision: string | null;
  zone: number | null;
  cursor: string | null;
}

interface Crossing {
  eventId: string;
  userId: number;
  kind: ReminderKind;
  quota: number;
}

/**
 * The low-quota reminder (new-api's QuotaRemindThreshold mail), driven by the ledger instead of the settlement, so
 * the relay's hot path does nothing for it. In the projector's batch transaction it folds each account's balance
 * (`quota_reminder_balances`, an ordinary projection table), and for every event past `quota_reminder_cursor` it
 * decides with the live threshold whether a charge crossed into a lower zone; the zone goes to `quota_reminders`
 * and a crossing to the `quota_reminder_mails` outbox, keyed by the event id. Those three tables are not in
 * `tables`: a rebuild replays the balances but decides nothing up to the cursor, so a replay never mails twice,
 * and two runners cannot both commit a batch (the checkpoint compare). After the commit the mailer queues the
 * outbox on the mail queue (`afterCommit`).
 */
@ReadModelProjection()
export class QuotaReminderProjection implements Projection {
  readonly name = 'quota-reminder';
  readonly tables = ['quota_reminder_balances'];
  readonly handles = [...Object.values(AccountEventType), QUOTA_CONSUMED];

  constructor(
    private readonly options: OptionsService,
    private readonly mailer: QuotaReminderMailer,
    @Optional() @Inject(REMINDER_CLOCK) private readonly clock: () => number = Date.now,
  ) {}

  /**
   * Whether the outbox may hold pending rows: set by a batch that found crossings, and at start (a crash may have left
   * some), so a batch without any costs the projector no outbox query.
   */
  private outboxDirty = true;

  async afterCommit(): Promise<void> {
    if (!this.outboxDirty) return;
    this.outboxDirty = false;
    try {
      const handled = await this.mailer.flush();
      // null: the mail queue's Redis is away; the rows wait for a batch after it is back.
      if (handled === null || handled >= REMINDER_FLUSH_LIMIT) this.outboxDirty = true;
    } catch (error) {
      this.outboxDirty = true;
      throw error;
    }
  }

  apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    return this.applyBatch([event], manager);
  }

  /**
   * A rebuild from an empty `quota_reminder_balances` folds the balances in memory and, like `apply`, decides only
   * the events past the cursor (quota-reminder.bulk-fold.ts).
   */
  bulkFold(): BulkFold {
    return new QuotaReminderBulkFold({
      threshold: () => this.options.getNumber('QuotaRemindThreshold'),
      now: this.clock,
      crossed: () => {
        this.outboxDirty = true;
      },
    });
  }

  /**
   * Two statements per batch whatever it holds (the projector's hot path): one reads the balances, zones and cursor
   * of the batch's users, one writes them back with the crossings. The runner's checkpoint lock already keeps a
   * second runner out of the batch, so the cursor needs no lock of its own.
   */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const accountEvents = events.filter((event) => streamCategory(event.streamId) === 'account');
    if (accountEvents.length === 0) return;
    const userIds = [...new Set(accountEvents.map((event) => streamKey(event.streamId)))];
    const rows = await queryPrepared<StateRow>(manager, READ_STATE, [userIds]);
    const balances = new Map<number, Balance>();
    const zones = new Map<number, ReminderZone>();
    let cursor = 0;
    for (const row of rows) {
      cursor = Number(row.cursor ?? 0);
      if (row.quota !== null) balances.set(row.user_id, { quota: Number(row.quota), revision: Number(row.revision) });
      if (row.zone !== null) zones.set(row.user_id, row.zone as ReminderZone);
    }
    const threshold = this.options.getNumber('QuotaRemindThreshold');
    const now = this.clock();
    const changed = new Map<number, Balance>();
    const moved = new Map<number, { zone: ReminderZone; position: number }>();
    const crossings: Crossing[] = [];
    for (const event of accountEvents) {
      const userId = streamKey(event.streamId);
      const balance = balances.get(userId) ?? NO_BALANCE;
      // The runner hands each event over once; this only keeps a hand-run replay from folding one twice.
      if (event.revision <= balance.revision) continue;
      const after = decodeEvent(event, (recorded) => quotaAfter(recorded, balance.quota));
      if (event.position > cursor) {
        const step = reminderStep(event, zones.get(userId) ?? null, balance.quota, after, threshold, now);
        if (step.moved) moved.set(userId, { zone: step.zone, position: event.position });
        zones.set(userId, step.zone);
        if (step.mail) {
          this.outboxDirty = true;
          crossings.push({ eventId: event.id, userId, kind: step.mail, quota: after });
        }
      }
      const next = { quota: after, revision: event.revision };
      balances.set(userId, next);
      changed.set(userId, next);
    }
    const last = accountEvents[accountEvents.length - 1].position;
    await queryPrepared(manager, WRITE_STATE, [
      [...changed.keys()],
      [...changed.values()].map((balance) => balance.quota),
      [...changed.values()].map((balance) => balance.revision),
      [...moved.keys()],
      [...moved.values()].map((zone) => zone.zone),
      [...moved.values()].map((zone) => zone.position),
      crossings.map((crossing) => crossing.eventId),
      crossings.map((crossing) => crossing.userId),
      crossings.map((crossing) => crossing.kind),
      crossings.map((crossing) => crossing.quota),
      last,
    ]);
  }
}
