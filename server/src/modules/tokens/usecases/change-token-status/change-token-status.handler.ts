import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { TokenEntity } from '../../token.entity';
import { TokenNotFoundError } from '../../token.errors';
import { TokenReader } from '../../token.reader';
import { type TokenJson, toTokenJson } from '../../token.serializer';
import { assertCanEnable, TokenStatus, unixSeconds } from '../../token-status';
import { TokenAuthCache } from '../../token-auth/token-auth-cache';
import { ChangeTokenStatusCommand } from './change-token-status.command';

@CommandHandler(ChangeTokenStatusCommand)
export class ChangeTokenStatusHandler implements ICommandHandler<ChangeTokenStatusCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: TokenReader,
    private readonly cache: TokenAuthCache,
  ) {}

  async execute({ userId, tokenId, status }: ChangeTokenStatusCommand): Promise<TokenJson> {
    const token = await this.reader.findOwned(userId, tokenId);
    if (!token) throw new TokenNotFoundError();
    if (status === TokenStatus.Enabled) assertCanEnable(token, unixSeconds());
    if (token.status !== status) {
      await this.dataSource.getRepository(TokenEntity).update({ id: tokenId, userId }, { status });
      await this.cache.tokenChanged(token);
    }
    return toTokenJson({ ...token, status });
  }
}
