import { DomainError } from '../../common/http/errors';

/** What a saved option value must look like. Every value is stored as a string. */
export type OptionKind =
  | { type: 'boolean' }
  | { type: 'integer'; min: number; max: number }
  | { type: 'number'; min: number; exclusiveMin?: boolean }
  | { type: 'ratio-map' }
  | { type: 'label-map' }
  | { type: 'address' }
  | { type: 'choice'; choices: readonly string[] }
  | { type: 'text' };

/** A value the option rules refuse; the message tells the operator what to fix. Nothing is saved. */
export class OptionRejectedError extends DomainError {
  constructor(message: string) {
    super(message, 'option_invalid');
  }
}

export const MAX_OPTION_VALUE_LENGTH = 1_000_000;
export const OPTION_KEY_PATTERN = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const integer = (min: number, max = Number.MAX_SAFE_INTEGER): OptionKind => ({ type: 'integer', min, max });

/**
 * The console forms' number bounds (quotas, thresholds and Price at least 0; DataExportInterval and MinTopUp at
 * least 1), plus the ports and counters new-api parses as ints.
 */
const NUMERIC_KINDS: Record<string, OptionKind> = {
  QuotaForNewUser: integer(0),
  QuotaForInviter: integer(0),
  QuotaForInvitee: integer(0),
  QuotaRemindThreshold: integer(0),
  PreConsumedQuota: integer(0),
  RetryTimes: integer(0),
  LogRetentionDays: integer(0),
  StreamCacheQueueLength: integer(0),
  FileUploadPermission: integer(0),
  FileDownloadPermission: integer(0),
  ImageUploadPermission: integer(0),
  ImageDownloadPermission: integer(0),
  DataExportInterval: integer(1),
  MinTopUp: integer(1),
  SMTPPort: integer(1, 65535),
  Price: { type: 'number', min: 0 },
  ChannelDisableThreshold: { type: 'number', min: 0 },
  // Every quota shown as currency is divided by it.
  QuotaPerUnit: { type: 'number', min: 0, exclusiveMin: true },
};

/** JSON options, parsed before saving; new-api saved them first and wiped the live map on a typo. */
const JSON_KINDS: Record<string, OptionKind> = {
  ModelRatio: { type: 'ratio-map' },
  ModelPrice: { type: 'ratio-map' },
  CompletionRatio: { type: 'ratio-map' },
  GroupRatio: { type: 'ratio-map' },
  TopupGroupRatio: { type: 'ratio-map' },
  UserUsableGroups: { type: 'label-map' },
};

/** Addresses other URLs are built from: a trailing slash would double up ("https://x//topup"). */
const ADDRESS_KEYS = new Set(['ServerAddress', 'WorkerUrl', 'PayAddress', 'WeChatServerAddress', 'CustomCallbackAddress']);

export function optionKind(key: string): OptionKind {
  if (key in NUMERIC_KINDS) return NUMERIC_KINDS[key];
  if (key in JSON_KINDS) return JSON_KINDS[key];
  if (ADDRESS_KEYS.has(key)) return { type: 'address' };
  if (key === 'DataExportDefaultTime') return { type: 'choice', choices: ['hour', 'day', 'week'] };
  // new-api parses every *Enabled key as a boolean (value == "true"), DefaultCollapseSidebar too.
  if (key.endsWith('Enabled') || key === 'DefaultCollapseSidebar') return { type: 'boolean' };
  return { type: 'text' };
}

/** Secrets never leave the server: GET /api/option/ hides every key ending in Token, Secret or Key. */
export function isSecretOption(key: string): boolean {
  return key.endsWith('Token') || key.endsWith('Secret') || key.endsWith('Key');
}

type Lookup = (key: string) => string;

/**
 * Switching these on without their settings would break a login path for everyone; the messages are new-api's.
 */
const ENABLE_GUARDS: Record<string, { ready: (current: Lookup) => boolean; message: string }> = {
  GitHubOAuthEnabled: {
    ready: (current) => current('GitHubClientId').trim() !== '',
    message: '无法启用 GitHub OAuth，请先填入 GitHub Client Id 以及 GitHub Client Secret！',
  },
  EmailDomainRestrictionEnabled: {
    ready: (current) =>
      current('EmailDomainWhitelist')
        .split(',')
        .some((domain) => domain.trim() !== ''),
    message: '无法启用邮箱域名限制，请先填入限制的邮箱域名！',
  },
  WeChatAuthEnabled: {
    ready: (current) => current('WeChatServerAddress').trim() !== '',
    message: '无法启用微信登录，请先填入微信登录相关配置信息！',
  },
  TurnstileCheckEnabled: {
    ready: (current) => current('TurnstileSiteKey').trim() !== '',
    message: '无法启用 Turnstile 校验，请先填入 Turnstile 校验相关配置信息！',
  },
};

/**
 * Checks one option change against its kind and the enable guards, and returns the value to store
 * (canonical booleans and numbers, addresses without trailing slashes). Pure: `current` reads the live map.
 */
export function normalizeOptionValue(key: string, value: string, current: Lookup): string {
  if (value.length > MAX_OPTION_VALUE_LENGTH) {
    throw new OptionRejectedError(`${key} 的值过长（最多 ${MAX_OPTION_VALUE_LENGTH} 个字符）`);
  }
  const normalized = normalizeByKind(key, optionKind(key), value);
  const guard = ENABLE_GUARDS[key];
  if (guard && normalized === 'true' && !guard.ready(current)) throw new OptionRejectedError(guard.message);
  return normalized;
}

function normalizeByKind(key: string, kind: OptionKind, value: string): string {
  switch (kind.type) {
    case 'boolean':
      if (value !== 'true' && value !== 'false') throw new OptionRejectedError(`${key} 的值必须是 true 或 false`);
      return value;
    case 'integer':
      return normalizeInteger(key, kind, value.trim());
    case 'number':
      return normalizeNumber(key, kind, value.trim());
    case 'ratio-map':
    case 'label-map':
      return normalizeJsonMap(key, kind.type, value);
    case 'address':
      return normalizeAddress(key, value);
    case 'choice':
      if (!kind.choices.includes(value)) throw new OptionRejectedError(`${key} 必须是 ${kind.choices.join('、')} 之一`);
      return value;
    case 'text':
      return value;
  }
}

function normalizeInteger(key: string, kind: { min: number; max: number }, value: string): string {
  const parsed = /^[+-]?\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(parsed) || parsed < kind.min || parsed > kind.max) {
    const range = kind.max === Number.MAX_SAFE_INTEGER ? `不小于 ${kind.min} 的整数` : ` ${kind.min} 到 ${kind.max} 之间的整数`;
    throw new OptionRejectedError(`${key} 必须是${range}`);
  }
  return String(parsed);
}

function normalizeNumber(key: string, kind: { min: number; exclusiveMin?: boolean }, value: string): string {
  const parsed = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Number(value) : Number.NaN;
  const belowMin = kind.exclusiveMin ? parsed <= kind.min : parsed < kind.min;
  if (!Number.isFinite(parsed) || belowMin) {
    throw new OptionRejectedError(`${key} 必须是${kind.exclusiveMin ? '大于' : '不小于'} ${kind.min} 的数字`);
  }
  return String(parsed);
}

function normalizeJsonMap(key: string, type: 'ratio-map' | 'label-map', value: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (error) {
    throw new OptionRejectedError(`${key} 不是合法的 JSON 字符串：${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new OptionRejectedError(`${key} 必须是 JSON 对象，例如 ${type === 'ratio-map' ? '{"default": 1}' : '{"default": "默认分组"}'}`);
  }
  for (const [name, entry] of Object.entries(parsed)) {
    if (name.trim() === '') throw new OptionRejectedError(`${key} 中的名称不能为空`);
    if (type === 'ratio-map' && (typeof entry !== 'number' || !Number.isFinite(entry) || entry < 0)) {
      throw new OptionRejectedError(`${key} 中 ${JSON.stringify(name)} 的值必须是不小于 0 的数字`);
    }
    if (type === 'label-map' && typeof entry !== 'string') {
      throw new OptionRejectedError(`${key} 中 ${JSON.stringify(name)} 的描述必须是字符串`);
    }
  }
  // Stored as sent (formatting included): the ratio editor shows the operator's own layout back.
  return value;
}

function normalizeAddress(key: string, value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  let url: URL | null = null;
  try {
    url = new URL(trimmed);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) {
    throw new OptionRejectedError(`${key} 必须是以 http:// 或 https:// 开头的地址`);
  }
  return trimmed;
}
