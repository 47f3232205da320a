import { InvalidParamsError } from '../../common/http/errors';
import { isRowId, parseGoInt, queryText } from '../users/user-input';
import type { TopUpPage } from './topup.reader';

export const TOPUPS_PER_PAGE = 10;
export const MAX_TOPUPS_PER_PAGE = 100;

/** `p` (0-based, default 0) and `page_size` (1..100, default 10); anything else is "无效的参数". */
export function parseTopUpPage(query: unknown): TopUpPage {
  const pageText = queryText(query, 'p').trim();
  const sizeText = queryText(query, 'page_size').trim();
  const page = pageText === '' ? 0 : parseGoInt(pageText);
  const pageSize = sizeText === '' ? TOPUPS_PER_PAGE : parseGoInt(sizeText);
  if (page === null || page < 0 || page > 1_000_000) throw new InvalidParamsError();
  if (pageSize === null || pageSize < 1 || pageSize > MAX_TOPUPS_PER_PAGE) throw new InvalidParamsError();
  return { page, pageSize };
}

/** The admin list's `user_id` filter: absent or empty is everyone; otherwise a user id. */
export function parseTopUpUserFilter(query: unknown): number | null {
  const text = queryText(query, 'user_id').trim();
  if (text === '') return null;
  const id = parseGoInt(text);
  if (!isRowId(id)) throw new InvalidParamsError();
  return id;
}
