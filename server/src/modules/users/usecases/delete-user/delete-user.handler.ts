import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CacheInvalidationService } from '#server/infrastructure/redis/cache-invalidation.service';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { UserEntity } from '../../user.entity';
import { UserActionRefusedError, UserNotFoundError } from '../../user.errors';
import { USER_CHANGED_TOPIC } from '../../users.topics';
import { DeleteUserCommand } from './delete-user.command';

@CommandHandler(DeleteUserCommand)
export class DeleteUserHandler implements ICommandHandler<DeleteUserCommand> {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  async execute({ id, callerRole }: DeleteUserCommand): Promise<void> {
    await this.erase(id, callerRole).catch((error: unknown) => {
      // Another table that references users (tokens, top-ups…) with a foreign key still holds rows of this user.
      if ((error as { driverError?: { code?: string } })?.driverError?.code === '23503') {
        throw new UserActionRefusedError('still_referenced');
      }
      throw error;
    });
    await this.invalidation.publish(USER_CHANGED_TOPIC, String(id));
  }

  private async erase(id: number, callerRole: number): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // Scoped, like new-api: a cancelled user is not found. Locked so no edit interleaves.
      const target = await manager.findOne(UserEntity, { where: { id }, lock: { mode: 'pessimistic_write' } });
      if (!target) throw new UserNotFoundError();
      // Even root cannot erase root: the role must be strictly higher.
      if (callerRole <= target.role) throw new UserActionRefusedError('cannot_delete_peer');
      // Checked under the row lock: an invite reward is appended while its sign-up holds a share lock on the
      // inviter's row, so it is either already in the stream here or will find no inviter once we commit.
      const history = await this.store.readStream(accountStream(id), { maxCount: 1 });
      if (history.length) throw new UserActionRefusedError('ledger_has_history');
      await manager.delete(UserEntity, { id });
    });
  }
}
