/**
 * The low-quota reminder's rules (new-api's QuotaRemindThreshold mail), pure. A balance is in one of three zones;
 * a charge that moves it into a lower zone than the one last recorded mails the user once, and any event that
 * moves it back up re-arms the reminder, so a user gets one mail per crossing rather than one per charge (new-api
 * mailed "您的额度已用尽" on every charge once the balance was spent).
 */

/** ok: at or above the threshold; low: below it but above 0; exhausted: 0 or less. Ordered, lower is worse. */
export const ReminderZone = { ok: 2, low: 1, exhausted: 0 } as const;
export type ReminderZone = (typeof ReminderZone)[keyof typeof ReminderZone];

export type ReminderKind = 'low' | 'exhausted';

export function zoneOf(quota: number, threshold: number): ReminderZone {
  if (quota <= 0) return ReminderZone.exhausted;
  return quota < threshold ? ReminderZone.low : ReminderZone.ok;
}

export interface ReminderDecision {
  /** The zone to record for the user from now on. */
  zone: ReminderZone;
  /** The mail to send, if this event crossed downwards. */
  mail: ReminderKind | null;
}

/**
 * After one account event: `recorded` is the zone last recorded for the user (null: none yet, taken from the
 * balance before the event), `after` the balance after it. Only a charge (the relay's QuotaConsumed) mails, as in
 * new-api, where the check ran in the settlement: an admin lowering a balance moves the zone silently.
 */
export function decideReminder(input: {
  recorded: ReminderZone | null;
  before: number;
  after: number;
  threshold: number;
  isCharge: boolean;
}): ReminderDecision {
  const previous = input.recorded ?? zoneOf(input.before, input.threshold);
  const zone = zoneOf(input.after, input.threshold);
  if (!input.isCharge || zone >= previous) return { zone, mail: null };
  return { zone, mail: zone === ReminderZone.exhausted ? 'exhausted' : 'low' };
}

/** new-api's subjects, verbatim. */
export const REMINDER_SUBJECTS: Record<ReminderKind, string> = {
  low: '您的额度即将用尽',
  exhausted: '您的额度已用尽',
};

function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** `<ServerAddress>/topup`, the wallet screen. */
export function topUpLink(serverAddress: string): string {
  return `${serverAddress.replace(/\/+$/, '')}/topup`;
}

/**
 * new-api's mail: "<subject>，当前剩余额度为 <quota>，为了不影响您的使用，请及时充值。<br/>充值链接：<a href='…'>…</a>".
 * The quota shown is the balance after the charge (new-api showed the one before it, which was misleading).
 */
export function reminderMail(kind: ReminderKind, quota: number, serverAddress: string): { subject: string; html: string } {
  const subject = REMINDER_SUBJECTS[kind];
  const link = escapeHtml(topUpLink(serverAddress));
  return {
    subject,
    html: `${subject}，当前剩余额度为 ${quota}，为了不影响您的使用，请及时充值。<br/>充值链接：<a href='${link}'>${link}</a>`,
  };
}

/**
 * A crossing older than this when the projector reaches it is recorded but not mailed: the projector catching up
 * on a long history (the first start after an upgrade) must not mail users about balances long since changed.
 */
export const REMINDER_MAX_AGE_MS = 24 * 3600 * 1000;
