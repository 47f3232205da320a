import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TokenReader } from '../../token.reader';
import { type TokenJson, toTokenJson } from '../../token.serializer';
import { SearchTokensQuery } from './search-tokens.query';

/**
 * new-api trims the key part with the cutset {s, k, -} (Go's strings.Trim), not the prefix `sk-`: a key
 * typed as `sk-abc` and one pasted as `abc-` both search for `abc`. Keys never contain `-`, so nothing is lost.
 */
export function trimKeyCutset(token: string): string {
  return token.replace(/^[sk-]+|[sk-]+$/g, '');
}

@QueryHandler(SearchTokensQuery)
export class SearchTokensHandler implements IQueryHandler<SearchTokensQuery> {
  constructor(private readonly reader: TokenReader) {}

  async execute({ userId, keyword, token }: SearchTokensQuery): Promise<TokenJson[]> {
    // No name or key holds NUL (Postgres text cannot), and a NUL must not reach the query as a parameter.
    if (keyword.includes('\u0000') || token.includes('\u0000')) return [];
    return (await this.reader.searchOwned(userId, keyword, trimKeyCutset(token))).map(toTokenJson);
  }
}
