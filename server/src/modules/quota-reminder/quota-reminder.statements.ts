import type { RecordedEvent } from '#server/ledger/event-store.port';
import { evolve, initialAccountState } from '#server/modules/accounts/account.state';
import { toAccountEvent } from '#server/modules/accounts/account-event-codec';
import { QUOTA_CONSUMED } from '#server/modules/accounts/index';
import { quotaConsumedData } from '#server/modules/accounts/quota-consumed-event-codec';
import { decideReminder, REMINDER_MAX_AGE_MS, type ReminderKind, type ReminderZone } from './quota-reminder';

/**
 * What the quota-reminder projection's two paths share (the batch in quota-reminder.projection.ts, the rebuild's
 * in-memory fold in quota-reminder.bulk-fold.ts): the balance fold and the statements of its bookkeeping.
 */

/** A user's balance as folded, and the revision of the last account event folded in. */
export interface Balance {
  quota: number;
  revision: number;
}

/** The balance before any account event (and the revision every event beats). */
export const NO_BALANCE: Readonly<Balance> = Object.freeze({ quota: 0, revision: -1 });

/** The balance after an account event: QuotaConsumed lowers it by the charge, the others fold as the deciders do. */
export function quotaAfter(event: RecordedEvent, before: number): number {
  if (event.type === QUOTA_CONSUMED) {
    const charge = quotaConsumedData(event).quota as unknown;
    if (typeof charge !== 'number' || !Number.isSafeInteger(charge)) throw new Error(`QuotaConsumed.quota is not a safe integer`);
    return before - charge;
  }
  return evolve({ ...initialAccountState, quota: before }, toAccountEvent(event)).quota;
}

/** The decision on one account event past the cursor: the zone to record from now on, and the mail to send. */
export interface ReminderStep {
  zone: ReminderZone;
  /** The zone differs from the one recorded (null: none yet): `quota_reminders` gets a write. */
  moved: boolean;
  /** A downward crossing by a charge, still fresh at `now` (REMINDER_MAX_AGE_MS); else null. */
  mail: ReminderKind | null;
}

/** decideReminder for `event` (balance `before` → `after`, `recorded` the user's zone so far), with the age guard. */
export function reminderStep(
  event: RecordedEvent,
  recorded: ReminderZone | null,
  before: number,
  after: number,
  threshold: number,
  now: number,
): ReminderStep {
  const decision = decideReminder({ recorded, before, after, threshold, isCharge: event.type === QUOTA_CONSUMED });
  const fresh = now - event.createdAt.getTime() <= REMINDER_MAX_AGE_MS;
  return { zone: decision.zone, moved: decision.zone !== recorded, mail: decision.mail && fresh ? decision.mail : null };
}

/** Per user of the batch: the folded balance, the zone last recorded, and (on every row) the decision cursor. */
export const READ_STATE = `
  SELECT u.user_id, b.quota, b.revision, r.zone, c.position AS cursor
    FROM unnest($1::int[]) AS u(user_id)
    LEFT JOIN quota_reminder_cursor c ON c.id = 1
    LEFT JOIN quota_reminder_balances b ON b.user_id = u.user_id
    LEFT JOIN quota_reminders r ON r.user_id = u.user_id`;

/**
 * The batch's balances ($1–$3), the zones that moved ($4–$6), the crossings ($7–$10: users without an email, or
 * cancelled, get no mail, as in new-api; the zone is recorded all the same) and the cursor ($11), in one statement
 * of data-modifying CTEs.
 */
export const WRITE_STATE = `
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
