/**
 * How quota amounts are worded in log lines and messages, as new-api words them: in currency mode
 * `＄%.6f 额度` (full-width ＄, quota / QuotaPerUnit), otherwise `%d 点额度`.
 *
 * The display settings are passed in rather than read from the options, so the wording is pure: events record
 * the settings in force when they happened and a projection replay words every log line exactly as it was.
 */
export interface QuotaDisplay {
  inCurrency: boolean;
  quotaPerUnit: number;
}

export function formatLogQuota(quota: number, display: QuotaDisplay): string {
  if (display.inCurrency && display.quotaPerUnit > 0) {
    return `＄${(quota / display.quotaPerUnit).toFixed(6)} 额度`;
  }
  return `${Math.trunc(quota)} 点额度`;
}

/** The live settings, from the option map. */
export function quotaDisplayFromOptions(options: { getBool(key: string): boolean; getNumber(key: string): number }): QuotaDisplay {
  return { inCurrency: options.getBool('DisplayInCurrencyEnabled'), quotaPerUnit: options.getNumber('QuotaPerUnit') };
}
