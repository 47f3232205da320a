import { Query } from '@nestjs/cqrs';
import type { TokenJson } from '../../token.serializer';

/** GET /api/token/:id: one of the caller's tokens (someone else's answers as not found). */
export class GetTokenQuery extends Query<TokenJson> {
  constructor(
    readonly userId: number,
    readonly tokenId: number,
  ) {
    super();
  }
}
