import { decideReminder, reminderMail, ReminderZone, topUpLink, zoneOf } from './quota-reminder';

describe('quota reminder rules', () => {
  const threshold = 1000;

  it('puts a balance in a zone: at or above the threshold ok, below it low, 0 or less exhausted', () => {
    expect(zoneOf(1000, threshold)).toBe(ReminderZone.ok);
    expect(zoneOf(999, threshold)).toBe(ReminderZone.low);
    expect(zoneOf(1, threshold)).toBe(ReminderZone.low);
    expect(zoneOf(0, threshold)).toBe(ReminderZone.exhausted);
    expect(zoneOf(-5, threshold)).toBe(ReminderZone.exhausted);
    // A threshold of 0 leaves only the exhausted mail.
    expect(zoneOf(1, 0)).toBe(ReminderZone.ok);
  });

  it('mails once when a charge crosses below the threshold, not on the charges after it', () => {
    const first = decideReminder({ recorded: null, before: 1500, after: 900, threshold, isCharge: true });
    expect(first).toEqual({ zone: ReminderZone.low, mail: 'low' });
    expect(decideReminder({ recorded: first.zone, before: 900, after: 800, threshold, isCharge: true })).toEqual({
      zone: ReminderZone.low,
      mail: null,
    });
  });

  it('mails "exhausted" when a charge reaches 0 or less, from low or straight from ok, and only once', () => {
    expect(decideReminder({ recorded: ReminderZone.low, before: 100, after: 0, threshold, isCharge: true }).mail).toBe('exhausted');
    expect(decideReminder({ recorded: ReminderZone.ok, before: 5000, after: -20, threshold, isCharge: true }).mail).toBe('exhausted');
    expect(decideReminder({ recorded: ReminderZone.exhausted, before: -20, after: -40, threshold, isCharge: true }).mail).toBeNull();
  });

  it('re-arms after the balance goes back up, and never mails for a credit or an admin edit', () => {
    const topUp = decideReminder({ recorded: ReminderZone.low, before: 800, after: 50_000, threshold, isCharge: false });
    expect(topUp).toEqual({ zone: ReminderZone.ok, mail: null });
    expect(decideReminder({ recorded: topUp.zone, before: 50_000, after: 10, threshold, isCharge: true }).mail).toBe('low');
    // An admin lowering the balance moves the zone silently, so the next charge in the same zone sends nothing.
    const lowered = decideReminder({ recorded: ReminderZone.ok, before: 50_000, after: 500, threshold, isCharge: false });
    expect(lowered).toEqual({ zone: ReminderZone.low, mail: null });
    expect(decideReminder({ recorded: lowered.zone, before: 500, after: 400, threshold, isCharge: true }).mail).toBeNull();
    // Topped up from exhausted to low: the exhausted mail is armed again, the low one is not.
    const partial = decideReminder({ recorded: ReminderZone.exhausted, before: -1, after: 300, threshold, isCharge: false });
    expect(partial.zone).toBe(ReminderZone.low);
    expect(decideReminder({ recorded: partial.zone, before: 300, after: 200, threshold, isCharge: true }).mail).toBeNull();
    expect(decideReminder({ recorded: partial.zone, before: 300, after: 0, threshold, isCharge: true }).mail).toBe('exhausted');
  });

  it("writes new-api's mail with the top-up link and the balance after the charge", () => {
    expect(topUpLink('https://gate.example.com/')).toBe('https://gate.example.com/topup');
    expect(reminderMail('low', 900, 'https://gate.example.com')).toEqual({
      subject: '您的额度即将用尽',
      html:
        "您的额度即将用尽，当前剩余额度为 900，为了不影响您的使用，请及时充值。<br/>充值链接：<a href='https://gate.example.com/topup'>" +
        'https://gate.example.com/topup</a>',
    });
    expect(reminderMail('exhausted', -3, 'http://x').subject).toBe('您的额度已用尽');
    // The address is an operator's option; it is escaped all the same.
    expect(reminderMail('low', 1, "http://x/'><script>").html).not.toContain("'><script>");
  });
});
