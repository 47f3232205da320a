import { Query } from '@nestjs/cqrs';
import type { TokenJson } from '../../token.serializer';

/** GET /api/token/?p&size: the caller's tokens, newest first, one 0-based page. */
export class ListTokensQuery extends Query<TokenJson[]> {
  constructor(
    readonly userId: number,
    readonly page: number,
    readonly size: number,
  ) {
    super();
  }
}
