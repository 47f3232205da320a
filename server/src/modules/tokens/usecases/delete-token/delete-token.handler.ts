import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { TokenAuthCache } from '../../token-auth/token-auth-cache';
import { TokenNotFoundError } from '../../token.errors';
import { DeleteTokenCommand } from './delete-token.command';

@CommandHandler(DeleteTokenCommand)
export class DeleteTokenHandler implements ICommandHandler<DeleteTokenCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly cache: TokenAuthCache,
  ) {}

  async execute({ userId, tokenId }: DeleteTokenCommand): Promise<void> {
    const [rows] = (await this.dataSource.query(
      'UPDATE tokens SET deleted_at = now() WHERE id = $1 AND user_id = $2 AND deleted_at IS NULL RETURNING key',
      [tokenId, userId],
    )) as [Array<{ key: string }>, number];
    if (rows.length === 0) throw new TokenNotFoundError();
    await this.cache.tokenChanged({ id: tokenId, key: rows[0].key });
  }
}
