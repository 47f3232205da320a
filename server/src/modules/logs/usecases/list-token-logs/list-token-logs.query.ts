import { Query } from '@nestjs/cqrs';
import type { LogJson } from '../../log.serializer';

/** At most this many rows (newest first): the route is public, so one call cannot load a huge history. */
export const TOKEN_LOGS_LIMIT = 1000;

/**
 * GET /api/log/token?key=sk-… (public, no session, as in new-api): the log rows of the token
 * whose key is given (with or without `sk-`), a bare array. Whoever holds the key sees what the token's owner sees
 * on their own log page: no ids and no admin_info (new-api returned both, exposing the channels tried;
 * later versions strip admin_info too). An unknown, malformed or deleted key gets an empty array.
 */
export class ListTokenLogsQuery extends Query<LogJson[]> {
  constructor(readonly key: string) {
    super();
  }
}
