import { Query } from '@nestjs/cqrs';
import type { TokenJson } from '../../token.serializer';

/** GET /api/token/search?keyword&token: the caller's tokens whose name and key contain the given parts. */
export class SearchTokensQuery extends Query<TokenJson[]> {
  constructor(
    readonly userId: number,
    readonly keyword: string,
    readonly token: string,
  ) {
    super();
  }
}
