import { z } from 'zod';
import { InvalidParamsError } from '../../common/http/errors';
import { decodeBody, isRowId, jsonInteger, jsonText } from '../users/user-input';
import {
  RedeemFailedError,
  RedemptionCountTooLargeError,
  RedemptionCountTooSmallError,
  RedemptionIdRequiredError,
  RedemptionNameLengthError,
  RedemptionNotFoundError,
  RedemptionQuotaOutOfRangeError,
} from './redemption.errors';
import { RedemptionStatus } from './redemption.events';

export const REDEMPTION_NAME_MAX_BYTES = 20;
export const MAX_CODES_PER_BATCH = 100;
/** 10^12 quota ($2 000 000 at the default unit): a code that large is a typo, and balances stay safe integers. */
export const MAX_REDEMPTION_QUOTA = 1_000_000_000_000;
/** new-api's column default: a code created with quota 0 stores 100. */
export const DEFAULT_REDEMPTION_QUOTA = 100;

// Field types as every console body reads them (users-input's Go-like decoding: null is absent, NUL refused).
const redemptionBody = z.object({
  id: jsonInteger,
  name: jsonText,
  quota: jsonInteger,
  count: jsonInteger,
  status: jsonInteger,
  key: jsonText,
});
type RedemptionBody = z.infer<typeof redemptionBody>;

const parseBody = (input: unknown): RedemptionBody => decodeBody(redemptionBody, input);

/** new-api counts the name in UTF-8 bytes: 20 bytes ≈ 6 CJK characters. */
function checkName(name: string): string {
  const bytes = Buffer.byteLength(name, 'utf8');
  if (bytes < 1 || bytes > REDEMPTION_NAME_MAX_BYTES) throw new RedemptionNameLengthError();
  return name;
}

function checkQuota(quota: number): number {
  if (quota < 0 || quota > MAX_REDEMPTION_QUOTA) throw new RedemptionQuotaOutOfRangeError(MAX_REDEMPTION_QUOTA);
  return quota;
}

export interface IssueRedemptionFields {
  name: string;
  quota: number;
  count: number;
}

/** POST /api/redemption/ `{name, quota, count}`, checked in new-api's order (name, then count). */
export function parseIssueRedemptions(input: unknown): IssueRedemptionFields {
  const body = parseBody(input);
  const name = checkName(body.name ?? '');
  const count = body.count ?? 0;
  if (count <= 0) throw new RedemptionCountTooSmallError();
  if (count > MAX_CODES_PER_BATCH) throw new RedemptionCountTooLargeError();
  const quota = checkQuota(body.quota ?? 0);
  return { name, count, quota: quota === 0 ? DEFAULT_REDEMPTION_QUOTA : quota };
}

function requireId(body: RedemptionBody): number {
  if (!body.id) throw new RedemptionIdRequiredError();
  if (!isRowId(body.id)) throw new RedemptionNotFoundError();
  return body.id;
}

/** PUT /api/redemption/: name and quota; an absent field keeps its value (new-api zeroed it). */
export function parseRedemptionEdit(input: unknown): { id: number; name?: string; quota?: number } {
  const body = parseBody(input);
  const id = requireId(body);
  return {
    id,
    name: body.name === undefined ? undefined : checkName(body.name),
    quota: body.quota === undefined ? undefined : checkQuota(body.quota),
  };
}

/** PUT /api/redemption/?status_only=true `{id, status}`: 1 (enable) or 2 (disable); "used" is not for an admin to set. */
export function parseRedemptionStatusChange(input: unknown): { id: number; status: 1 | 2 } {
  const body = parseBody(input);
  const id = requireId(body);
  if (body.status !== RedemptionStatus.Unused && body.status !== RedemptionStatus.Disabled) throw new InvalidParamsError();
  return { id, status: body.status };
}

/** POST /api/user/topup `{key}`. */
export function parseRedeem(input: unknown): string {
  const body = parseBody(input);
  const key = body.key ?? '';
  if (key === '') throw new RedeemFailedError('no_key');
  return key;
}

/** A path id: digits only, else "无效的参数"; 0 is new-api's "id 为空！". */
export function parseRedemptionId(raw: string): number {
  if (!/^\d{1,10}$/.test(raw)) throw new InvalidParamsError();
  const id = Number(raw);
  if (id === 0) throw new RedemptionIdRequiredError();
  if (id > 2147483647) throw new InvalidParamsError();
  return id;
}

/** `?p` of GET /api/redemption/: 0-based, 10 a page; negative or junk reads as 0. */
export function parseRedemptionPage(query: { p?: unknown }): number {
  const value = Array.isArray(query.p) ? query.p[0] : query.p;
  return typeof value === 'string' && /^-?\d{1,9}$/.test(value.trim()) ? Math.max(0, Number(value.trim())) : 0;
}
