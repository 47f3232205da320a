import { z } from 'zod';
import { DomainError, InvalidParamsError } from '../../common/http/errors';

/**
 * Request decoding for the users API, in two steps like new-api: a body that does not decode into the
 * expected types is "无效的参数"; a decoded field that breaks a validation rule (`validateProfile`) is "输入不合法 <detail>".
 */
export class InvalidInputError extends DomainError {
  constructor(detail: string) {
    super(`输入不合法 ${detail}`, 'invalid_input');
  }
}

/** Characters as Go's validator counts them (runes), not UTF-16 units. */
export const runeLength = (value: string) => [...value].length;

/**
 * A JSON string. Postgres text cannot hold NUL, so a string with one is refused here rather than failing in the
 * database. JSON null counts as absent (Go leaves the field at its zero value).
 */
export const jsonText = z
  .string()
  .refine((value) => !value.includes('\u0000'))
  .nullish()
  .transform((value) => value ?? undefined);

/** A JSON integer in the safe range; null counts as absent. */
export const jsonInteger = z
  .number()
  .int()
  .nullish()
  .transform((value) => value ?? undefined);

/** Decodes a JSON body: it must be an object, and every known field must have its type. Unknown keys are ignored. */
export function decodeBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new InvalidParamsError();
  const result = schema.safeParse(body);
  if (!result.success) throw new InvalidParamsError();
  return result.data;
}

/** One query parameter as Go's `c.Query` reads it: the first value, or "" when absent or not a string. */
export function queryText(query: unknown, name: string): string {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first : '';
}

/** Go's strconv.Atoi: an optional sign and decimal digits, nothing else; null when it does not parse. */
export function parseGoInt(text: string): number | null {
  if (!/^[+-]?\d+$/.test(text)) return null;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : null;
}

/** Postgres `integer` ids: anything outside cannot name a row, and must not reach a query as a parameter. */
export function isRowId(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= 2_147_483_647;
}

/** Unicode control (Cc) and format (Cf: zero-width, bidi overrides and isolates, BOM) characters. */
const HIDDEN_CHARACTERS = /[\p{Cc}\p{Cf}]/u;

/** NFKC, so a look-alike (`ｒｏｏｔ`, full width) names the account it imitates; undefined stays undefined. */
export function normaliseName<T extends string | undefined>(value: T): T {
  return (value === undefined ? value : value.normalize('NFKC')) as T;
}

/** A name from elsewhere (an OAuth provider's display name): NFKC, hidden characters dropped rather than refused. */
export function cleanExternalName(value: string): string {
  return value.normalize('NFKC').replace(new RegExp(HIDDEN_CHARACTERS.source, 'gu'), '');
}

export interface ProfileFields {
  username?: string;
  display_name?: string;
  password?: string;
  email?: string;
  group?: string;
}

/**
 * new-api's struct validation: username at most 12 characters, password 8–20, display name at most
 * 20, email at most 50. An empty password is not validated: on updates it means "unchanged".
 * The group is not validated by new-api; it is bounded here by its column (64). Ours: usernames and display
 * names (passed NFKC-normalised, `normaliseName`) may not hold control, zero-width or bidirectional characters.
 */
export function validateProfile(fields: ProfileFields): void {
  if (fields.username !== undefined && runeLength(fields.username) > 12) throw new InvalidInputError('用户名长度不能超过 12 个字符');
  if (fields.username !== undefined && HIDDEN_CHARACTERS.test(fields.username)) {
    throw new InvalidInputError('用户名不能包含控制字符、零宽字符或双向控制字符');
  }
  if (fields.display_name !== undefined && HIDDEN_CHARACTERS.test(fields.display_name)) {
    throw new InvalidInputError('显示名称不能包含控制字符、零宽字符或双向控制字符');
  }
  if (fields.password) {
    const length = runeLength(fields.password);
    if (length < 8 || length > 20) throw new InvalidInputError('密码长度必须在 8 到 20 个字符之间');
  }
  if (fields.display_name !== undefined && runeLength(fields.display_name) > 20) {
    throw new InvalidInputError('显示名称长度不能超过 20 个字符');
  }
  if (fields.email !== undefined && runeLength(fields.email) > 50) throw new InvalidInputError('邮箱长度不能超过 50 个字符');
  if (fields.group !== undefined && runeLength(fields.group) > 64) throw new InvalidInputError('分组名称长度不能超过 64 个字符');
}
