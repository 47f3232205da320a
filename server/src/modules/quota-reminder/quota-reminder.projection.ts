import { Inject, Optional } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { streamCategory, streamKey } from '#server/ledger/streams';
import { evolve, initialAccountState } from '#server/modules/accounts/account.state';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { AccountEventType, QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { decodeEvent } from '#projections/runner/batch-folds';
import type { Projection } from '#projections/runner/projection';
import { ReadModelProjection } from '#projections/runner/read-model-projection.decorator';
import { OptionsService } from '../options/options.service';
import { decideReminder, REMINDER_MAX_AGE_MS, type ReminderKind, type ReminderZone } from './quota-reminder';
import { QuotaReminderMailer } from './quota-reminder-mailer';

/** The wall clock, injectable so a spec can age events; only the freshness guard reads it. */
export const REMINDER_CLOCK = Symbol('REMINDER_CLOCK');

interface Balance {
  quota: number;
  revision: number;
}

interface Crossing {
  eventId: string;
  userId: number;
  kind: ReminderKind;
  quota: number;
}

/** The balance after an account event: QuotaConsumed lowers it by the charge, the others fold as the deciders do. */
function quotaAfter(event: RecordedEvent, before: number): number {
  if (event.type === QUOTA_CONSUMED) {
    const charge = event.data.quota;
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

  async afterCommit(): Promise<void> {
    await this.mailer.flush();
  }

  apply(event: RecordedEvent, manager: EntityManager): Promise<void> {
    return this.applyBatch([event], manager);
  }

  /** A constant number of statements per batch: the balances, zones and cursor read once and written once. */
  async applyBatch(events: readonly RecordedEvent[], manager: EntityManager): Promise<void> {
    const accountEvents = events.filter((event) => streamCategory(event.streamId) === 'account');
    if (accountEvents.length === 0) return;
    const userIds = [...new Set(accountEvents.map((event) => streamKey(event.streamId)))];
    const balances = new Map<number, Balance>(
      (await manager.query('SELECT user_id, quota, revision FROM quota_reminder_balances WHERE user_id = ANY($1)', [userIds])).map(
        (row: { user_id: number; quota: string; revision: string }) => [
          row.user_id,
          { quota: Number(row.quota), revision: Number(row.revision) },
        ],
      ),
    );
    const [cursorRow] = await manager.query('SELECT position FROM quota_reminder_cursor WHERE id = 1 FOR UPDATE');
    const cursor = Number(cursorRow?.position ?? 0);
    const undecided = accountEvents.some((event) => event.position > cursor);
    const zones = new Map<number, ReminderZone>();
    if (undecided) {
      const rows: Array<{ user_id: number; zone: number }> = await manager.query(
        'SELECT user_id, zone FROM quota_reminders WHERE user_id = ANY($1)',
        [userIds],
      );
      for (const row of rows) zones.set(row.user_id, row.zone as ReminderZone);
    }
    const threshold = this.options.getNumber('QuotaRemindThreshold');
    const now = this.clock();
    const changed = new Map<number, Balance>();
    const decided = new Map<number, { zone: ReminderZone; position: number }>();
    const crossings: Crossing[] = [];
    for (const event of accountEvents) {
      const userId = streamKey(event.streamId);
      const balance = balances.get(userId) ?? { quota: 0, revision: -1 };
      // The runner hands each event over once; this only keeps a hand-run replay from folding one twice.
      if (event.revision <= balance.revision) continue;
      const after = decodeEvent(event, (recorded) => quotaAfter(recorded, balance.quota));
      if (event.position > cursor) {
        const decision = decideReminder({
          recorded: zones.get(userId) ?? null,
          before: balance.quota,
          after,
          threshold,
          isCharge: event.type === QUOTA_CONSUMED,
        });
        zones.set(userId, decision.zone);
        decided.set(userId, { zone: decision.zone, position: event.position });
        if (decision.mail && now - event.createdAt.getTime() <= REMINDER_MAX_AGE_MS) {
          crossings.push({ eventId: event.id, userId, kind: decision.mail, quota: after });
        }
      }
      const next = { quota: after, revision: event.revision };
      balances.set(userId, next);
      changed.set(userId, next);
    }
    if (changed.size) {
      await manager.query(
        `INSERT INTO quota_reminder_balances (user_id, quota, revision)
         SELECT * FROM unnest($1::int[], $2::bigint[], $3::bigint[])
         ON CONFLICT (user_id) DO UPDATE SET quota = EXCLUDED.quota, revision = EXCLUDED.revision`,
        [[...changed.keys()], [...changed.values()].map((b) => b.quota), [...changed.values()].map((b) => b.revision)],
      );
    }
    if (!undecided) return;
    if (decided.size) {
      await manager.query(
        `INSERT INTO quota_reminders (user_id, zone, position)
         SELECT * FROM unnest($1::int[], $2::smallint[], $3::bigint[])
         ON CONFLICT (user_id) DO UPDATE SET zone = EXCLUDED.zone, position = EXCLUDED.position, updated_at = now()`,
        [[...decided.keys()], [...decided.values()].map((d) => d.zone), [...decided.values()].map((d) => d.position)],
      );
    }
    if (crossings.length) {
      // Users without an email (or cancelled) get no mail, as in new-api; the zone is recorded all the same.
      await manager.query(
        `INSERT INTO quota_reminder_mails (event_id, user_id, kind, quota, email)
         SELECT m.event_id, m.user_id, m.kind, m.quota, u.email
           FROM unnest($1::varchar[], $2::int[], $3::varchar[], $4::bigint[]) AS m(event_id, user_id, kind, quota)
           JOIN users u ON u.id = m.user_id AND u.deleted_at IS NULL AND u.email <> ''
         ON CONFLICT (event_id) DO NOTHING`,
        [crossings.map((c) => c.eventId), crossings.map((c) => c.userId), crossings.map((c) => c.kind), crossings.map((c) => c.quota)],
      );
    }
    const last = accountEvents[accountEvents.length - 1].position;
    await manager.query('UPDATE quota_reminder_cursor SET position = $1 WHERE id = 1 AND position < $1', [last]);
  }
}
