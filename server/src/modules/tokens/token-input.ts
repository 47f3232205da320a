import { z } from 'zod';
import { InvalidParamsError } from '../../common/http/errors';
import { parseAllowIps } from './token-auth/allowed-ips';
import {
  InvalidTokenFieldError,
  NegativeTokenQuotaError,
  TokenIdRequiredError,
  TokenNameTooLongError,
  TokenNotFoundError,
} from './token.errors';
import { NEVER_EXPIRES, TokenStatus } from './token-status';

/** The editable fields of a token, as the drawer sends them (the console's token drawer). */
export interface TokenFields {
  name: string;
  remainQuota: number;
  /** Unix seconds, or -1 for never. */
  expiredTime: number;
  unlimitedQuota: boolean;
  modelLimitsEnabled: boolean;
  modelLimits: string;
  allowIps: string;
  group: string;
}

export const TOKEN_NAME_MAX_BYTES = 30;
export const MODEL_LIMITS_MAX_LENGTH = 1024;
export const ALLOW_IPS_MAX_LENGTH = 16384;
export const GROUP_MAX_LENGTH = 64;

const integer = z.number().int().refine(Number.isSafeInteger);
/** Postgres text cannot hold NUL: a string with one is refused here rather than failing in the database. */
const text = z.string().refine((value) => !value.includes('\u0000'));
/** Go's JSON decoding leaves a field at its zero value for `null`; so do we (null = absent). */
const nullable = <T extends z.ZodType>(schema: T) => schema.nullish().transform((value) => value ?? undefined);

const tokenBody = z.object({
  id: nullable(integer),
  status: nullable(integer),
  name: nullable(text),
  remain_quota: nullable(integer),
  expired_time: nullable(integer),
  unlimited_quota: nullable(z.boolean()),
  model_limits_enabled: nullable(z.boolean()),
  model_limits: nullable(text),
  allow_ips: nullable(text),
  group: nullable(text),
});
type TokenBody = z.infer<typeof tokenBody>;

function parseBody(input: unknown): TokenBody {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new InvalidParamsError();
  const result = tokenBody.safeParse(input);
  if (!result.success) throw new InvalidParamsError();
  return result.data;
}

/** new-api counts the name in UTF-8 bytes, not characters: 30 bytes ≈ 10 CJK characters. */
function checkName(name: string | undefined): void {
  if (name !== undefined && Buffer.byteLength(name, 'utf8') > TOKEN_NAME_MAX_BYTES) throw new TokenNameTooLongError();
}

/**
 * Our rules beyond new-api's name length (each a fix: new-api stores these and misbehaves later):
 * quota is not negative, an expiry is -1 or a time, the model list fits its column, every allow-list entry is an
 * address or a range (new-api silently drops bad lines, lifting the restriction), the group fits its column.
 */
function checkFields(body: TokenBody, options: { negativeQuota: boolean }): void {
  if (!options.negativeQuota && body.remain_quota !== undefined && body.remain_quota < 0) throw new NegativeTokenQuotaError();
  if (body.expired_time !== undefined && body.expired_time < NEVER_EXPIRES) {
    throw new InvalidTokenFieldError('过期时间无效，请设置为 -1（永不过期）或一个具体时间');
  }
  if (body.model_limits !== undefined && body.model_limits.length > MODEL_LIMITS_MAX_LENGTH) {
    throw new InvalidTokenFieldError(`模型限制列表过长，最多 ${MODEL_LIMITS_MAX_LENGTH} 个字符`);
  }
  if (body.allow_ips !== undefined) {
    if (body.allow_ips.length > ALLOW_IPS_MAX_LENGTH) throw new InvalidTokenFieldError('IP 白名单过长');
    const { invalid } = parseAllowIps(body.allow_ips);
    if (invalid.length) throw new InvalidTokenFieldError(`IP 白名单中的 ${invalid[0].slice(0, 64)} 不是合法的 IP 地址或网段`);
  }
  if (body.group !== undefined && body.group.length > GROUP_MAX_LENGTH) throw new InvalidTokenFieldError('令牌分组名称过长');
}

/**
 * Zero means default, as in new-api's insert (a zero field takes the column default, -1 for the expiry), and for an
 * edit too: expiry 0 is "never", not 1970.
 */
function expiry(value: number | undefined): number | undefined {
  return value === 0 ? NEVER_EXPIRES : value;
}

function fieldsOf(body: TokenBody): Partial<TokenFields> {
  const fields: Partial<TokenFields> = {
    name: body.name,
    remainQuota: body.remain_quota,
    expiredTime: expiry(body.expired_time),
    unlimitedQuota: body.unlimited_quota,
    modelLimitsEnabled: body.model_limits_enabled,
    modelLimits: body.model_limits,
    allowIps: body.allow_ips,
    group: body.group,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<TokenFields>;
}

/**
 * POST /api/token/: absent fields take new-api's defaults (expiry never, quota 0, no limits, owner's group).
 * Unlike new-api, `name` must be present (it may be ''): the console always sends it, and a body without it
 * (`{}`, `null`, only unknown keys) is a malformed request that must not create a token.
 */
export function parseCreateToken(input: unknown): TokenFields {
  const body = parseBody(input);
  if (body.name === undefined) throw new InvalidParamsError();
  checkName(body.name);
  checkFields(body, { negativeQuota: false });
  return {
    name: '',
    remainQuota: 0,
    expiredTime: NEVER_EXPIRES,
    unlimitedQuota: false,
    modelLimitsEnabled: false,
    modelLimits: '',
    allowIps: '',
    group: '',
    ...fieldsOf(body),
  };
}

export interface TokenEdit {
  id: number;
  /** The body's status: only `1` means something in a full edit (the enable rules run). */
  status?: number;
  /** Fields present in the body; absent ones keep their value (new-api zeroed them). */
  fields: Partial<TokenFields>;
}

function requireId(body: TokenBody): number {
  if (!body.id) throw new TokenIdRequiredError();
  if (body.id < 0) throw new TokenNotFoundError();
  return body.id;
}

/** PUT /api/token/ (full edit). */
export function parseTokenEdit(input: unknown): TokenEdit {
  const body = parseBody(input);
  checkName(body.name);
  const id = requireId(body);
  // A negative remaining quota is refused by the edit handler only if it is a change: an overdrawn token's form
  // sends its (negative) balance back unchanged when the user edits something else.
  checkFields(body, { negativeQuota: true });
  return { id, status: body.status, fields: fieldsOf(body) };
}

/** PUT /api/token/?status_only=true: `{id, status}` with status 1 (enable) or 2 (disable). */
export function parseTokenStatusChange(input: unknown): { id: number; status: 1 | 2 } {
  const body = parseBody(input);
  checkName(body.name);
  const id = requireId(body);
  if (body.status !== TokenStatus.Enabled && body.status !== TokenStatus.Disabled) throw new InvalidParamsError();
  return { id, status: body.status };
}

/** A path id: digits only, else "无效的参数"; 0 is new-api's "id 或 userId 为空！". */
export function parseTokenId(raw: string): number {
  if (!/^\d{1,10}$/.test(raw)) throw new InvalidParamsError();
  const id = Number(raw);
  if (id === 0) throw new TokenIdRequiredError();
  if (id > 2147483647) throw new InvalidParamsError();
  return id;
}

/** `?p&size` of GET /api/token/: 0-based page; size ≤ 0 (or absent) → 10, capped at 100; junk reads as 0. */
export function parsePage(query: { p?: unknown; size?: unknown }): { page: number; size: number } {
  const number = (value: unknown) => {
    const text = Array.isArray(value) ? value[0] : value;
    return typeof text === 'string' && /^-?\d{1,9}$/.test(text.trim()) ? Number(text.trim()) : 0;
  };
  const page = Math.max(0, number(query.p));
  const requested = number(query.size);
  const size = requested <= 0 ? 10 : Math.min(requested, 100);
  return { page, size };
}
