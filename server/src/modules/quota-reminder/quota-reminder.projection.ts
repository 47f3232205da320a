import { Inject, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { evolve, initialAccountState } from '#server/modules/accounts/account.state';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { AccountEventType, QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { decodeEvent } from '#projections/runner/batch-folds';
import { queryPrepared } from '#projections/runner/prepared-query';
import type { Projection } from '#projections/runner/projection';
import { ReadModelProjection } from '#projections/runner/read-model-projection.decorator';
import { OptionsService } from '../options/options.service';
import { decideReminder, REMINDER_MAX_AGE_MS, type ReminderKind, type ReminderZone } from './quota-reminder';
import { QuotaReminderMailer, REMINDER_FLUSH_LIMIT } from './quota-reminder-mailer';
import { quotaConsumedData } from '#server/modules/accounts/quota-consumed-event-codec';

/** The wall clock, injectable so a spec can age events; only the freshness guard reads it. */
export const REMINDER_CLOCK = Symbol('REMINDER_CLOCK');

interface Balance {
  quota: number;
  revision: number;
}

interface StateRow {
  user_id: number;
  quota: string | null;
  revision: string | null;
  zone: number | null;
  cursor: string | null;
}

/** Per user of the batch: the folded balance, the zone last recorded, and (on every row) the decision cursor. */
const READ_STATE = `
  SELECT u.user_id, b.quota, b.revision, r.zone, c.position AS cursor
    FROM unnest($1::int[]) AS u(user_id)
    LEFT JOIN quota_reminder_cursor c ON c.id = 1
    LEFT JOIN quota_reminder_balances b ON b.user_id = u.user_id
    LEFT JOIN quota_reminders r ON r.user_id = u.user_id`;

/**
 * The batch's balances, the zones that moved, the crossings (users without an email, or cancelled, get no mail, as
 * in new-api; the zone is recorded all the same) and the cursor, in one statement of data-modifying CTEs.
 */
const WRITE_STATE = `
  WITH balances AS (
    INSERT INTO quota_reminder_balances (user_id, quota, revision)
    SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[])
    ON CONFLICT (user_id) DO UPDATE SET quota = EXCLUDED.quota, revision = EXCLUDED.revision
  ), zones AS (
    INSERT INTO quota_reminders (user_id, zone, position)
    SELECT * FROM unnest($4::int[], $5::smallint[], $6::bigint[])
    ON CONFLICT (user_id) DO UPDATE SET zone = EXCLUDED.zone, position = EXCLUDED.position, updated_at = now()
  ), mails AS (
    INSERT INTO quota_reminder_mails (event_id, user_id, kind, quota, email)
    SELECT m.event_id, m.user_id, m.kind, m.quota, u.email
      FROM unnest($7::varchar[], $8::int[], $9::varchar[], $10::bigint[]) AS m(event_id, user_id, kind, quota)
      JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL AND u.email <> ''
    ON CONFLICT (event_id) DO NOTHING
  )
  UPDATE quota_reminder_cursor SET position = $11 WHERE id = 1 AND position < $11`;

interface Crossing {
  eventId: string;
  userId: number;
  kind: ReminderKind;
  quota: number;
}

/** The balance after an account event: QuotaConsumed lowers it by the charge, the others fold as the deciders do. */
function quotaAfter(event: RecordedEvent, before: number): number {
  if (event.type === QUOTA_CONSUMED) {
    const charge = quotaConsumedData(event).quota as unknown;
    if (typeof charge !== 'number' || !Number.isSafeInteger(charge)) throw new Error(`QuotaConsumed.quota is not a safe integer`);
    return before - charge;
  }
  return evolve({ ...initialAccountState, quota: before }, toAccountEvent(event)).quota;
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
      if ((await this.mailer.flush()) >= REMINDER_FLUSH_LIMIT) this.outboxDirty = true;
    } catch (error) {
      this.outboxDirty = true;
      throw error;
    }
  }

  apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    return this.applyBatch([event], manager);
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
      const balance = balances.get(userId) ?? { quota: 0, revision: -1 };
      // The runner hands each event over once; this only keeps a hand-run replay from folding one twice.
      if (event.revision <= balance.revision) continue;
      const after = decodeEvent(event, (recorded) => quotaAfter(recorded, balance.quota));
      if (event.position > cursor) {
        const recorded = zones.get(userId) ?? null;
        const decision = decideReminder({ recorded, before: balance.quota, after, threshold, isCharge: event.type === QUOTA_CONSUMED });
        if (decision.zone !== recorded) moved.set(userId, { zone: decision.zone, position: event.position });
        zones.set(userId, decision.zone);
        if (decision.mail && now - event.createdAt.getTime() <= REMINDER_MAX_AGE_MS) {
          this.outboxDirty = true;
          crossings.push({ eventId: event.id, userId, kind: decision.mail, quota: after });
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
