import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TokenReader } from '../../token.reader';
import { type TokenJson, toTokenJson } from '../../token.serializer';
import { ListTokensQuery } from './list-tokens.query';

@QueryHandler(ListTokensQuery)
export class ListTokensHandler implements IQueryHandler<ListTokensQuery> {
  constructor(private readonly reader: TokenReader) {}

  async execute({ userId, page, size }: ListTokensQuery): Promise<TokenJson[]> {
    return (await this.reader.listOwned(userId, page, size)).map(toTokenJson);
  }
}
