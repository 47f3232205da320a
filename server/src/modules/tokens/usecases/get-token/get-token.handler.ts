import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TokenNotFoundError } from '../../token.errors';
import { TokenReader } from '../../token.reader';
import { type TokenJson, toTokenJson } from '../../token.serializer';
import { GetTokenQuery } from './get-token.query';

@QueryHandler(GetTokenQuery)
export class GetTokenHandler implements IQueryHandler<GetTokenQuery> {
  constructor(private readonly reader: TokenReader) {}

  async execute({ userId, tokenId }: GetTokenQuery): Promise<TokenJson> {
    const token = await this.reader.findOwned(userId, tokenId);
    if (!token) throw new TokenNotFoundError();
    return toTokenJson(token);
  }
}
