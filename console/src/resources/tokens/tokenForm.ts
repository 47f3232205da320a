import { NEVER_EXPIRES, type Token, type TokenFields } from '../../providers/endpoints/tokenEndpoints';

/** What the drawer's inputs hold: text as typed, turned into the wire fields on submit. */
export interface TokenFormValues {
  name: string;
  /** `YYYY-MM-DDTHH:mm:ss` in local time (a datetime-local input), or '' for never. */
  expiry: string;
  unlimitedQuota: boolean;
  remainQuota: string;
  modelLimitsEnabled: boolean;
  modelLimits: string[];
  allowIps: string;
  group: string;
  /** How many tokens to create (creation only). */
  count: string;
}

/** A new token's remaining quota before the user changes it: 500000 units, 1$ at the default rate. */
export const DEFAULT_REMAIN_QUOTA = 500000;
/** Quota quick picks, in dollars (1$ = quota_per_unit units). */
export const QUOTA_PICKS = [1, 10, 50, 100, 500, 1000];
/** Batch-creation quick picks. */
export const COUNT_PICKS = [10, 20, 30, 100];
/** Expiry quick picks: never, one hour, one day, one month (30 days), in seconds from now. */
export const EXPIRY_PICKS = [
  { key: 'expiry_never', seconds: 0 },
  { key: 'expiry_hour', seconds: 3600 },
  { key: 'expiry_day', seconds: 86400 },
  { key: 'expiry_month', seconds: 30 * 86400 },
] as const;

const pad = (value: number) => String(value).padStart(2, '0');

/** Unix seconds as the local `YYYY-MM-DDTHH:mm:ss` a datetime-local input takes. */
export const toLocalInput = (seconds: number): string => {
  const date = new Date(seconds * 1000);
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
  );
};

/** Unix seconds as the list shows them: local `YYYY-MM-DD HH:mm:ss`. */
export const renderTimestamp = (seconds: number): string => toLocalInput(seconds).replace('T', ' ');

/** The expiry a quick pick sets: '' (never) for 0 seconds, else now plus the span. */
export const expiryAfter = (seconds: number, nowMs = Date.now()): string =>
  seconds === 0 ? '' : toLocalInput(Math.floor(nowMs / 1000) + seconds);

/** '' is never (-1); a local date-time is its unix seconds (rounded up, as new-api); anything else is null (invalid). */
export const parseExpiry = (value: string): number | null => {
  if (!value.trim()) return NEVER_EXPIRES;
  // A date-time without an offset is local time (ECMAScript); a date alone would be UTC, so require the time.
  if (!/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2})?$/.test(value.trim())) return null;
  const ms = new Date(value.trim().replace(' ', 'T')).getTime();
  return Number.isFinite(ms) ? Math.ceil(ms / 1000) : null;
};

/** Integers as new-api reads them (parseInt): junk reads as 0. */
export const toInteger = (value: string): number => {
  const parsed = Number.parseInt(value, 10);
  return Number.isFinite(parsed) ? parsed : 0;
};

export const emptyForm = (): TokenFormValues => ({
  name: '',
  expiry: '',
  unlimitedQuota: false,
  remainQuota: String(DEFAULT_REMAIN_QUOTA),
  modelLimitsEnabled: false,
  modelLimits: [],
  allowIps: '',
  group: '',
  count: '1',
});

export const formOf = (token: Token): TokenFormValues => ({
  name: token.name,
  expiry: token.expired_time === NEVER_EXPIRES ? '' : toLocalInput(token.expired_time),
  unlimitedQuota: token.unlimited_quota,
  remainQuota: String(token.remain_quota),
  modelLimitsEnabled: token.model_limits_enabled,
  modelLimits: token.model_limits ? token.model_limits.split(',').filter(Boolean) : [],
  allowIps: token.allow_ips ?? '',
  group: token.group,
  count: '1',
});

/** The wire fields of the form, or null when the expiry cannot be read. */
export const fieldsOf = (values: TokenFormValues): TokenFields | null => {
  const expiredTime = parseExpiry(values.expiry);
  if (expiredTime === null) return null;
  return {
    name: values.name,
    remain_quota: toInteger(values.remainQuota),
    expired_time: expiredTime,
    unlimited_quota: values.unlimitedQuota,
    model_limits_enabled: values.modelLimitsEnabled,
    model_limits: values.modelLimits.join(','),
    allow_ips: values.allowIps,
    group: values.group,
  };
};

const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Six random letters or digits, told apart from the base name by a dash. */
export const randomSuffix = (random: () => number = Math.random): string =>
  Array.from({ length: 6 }, () => SUFFIX_ALPHABET[Math.floor(random() * SUFFIX_ALPHABET.length)]).join('');

/** The names of a batch: the first keeps the name as typed, every other one gets `-<6 random characters>`. */
export const batchNames = (name: string, count: number, random?: () => number): string[] =>
  Array.from({ length: Math.max(1, count) }, (_, index) => (index === 0 ? name : `${name}-${randomSuffix(random)}`));
