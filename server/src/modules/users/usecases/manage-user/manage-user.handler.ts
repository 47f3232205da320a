import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CacheInvalidationService } from '#server/infrastructure/redis/cache-invalidation.service';
import { UserEntity } from '../../user.entity';
import { UserNotFoundError } from '../../user.errors';
import { USER_CHANGED_TOPIC } from '../../users.topics';
import { decideManage } from './decide-manage';
import { ManageUserCommand } from './manage-user.command';

@CommandHandler(ManageUserCommand)
export class ManageUserHandler implements ICommandHandler<ManageUserCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  async execute({ id, action, callerRole }: ManageUserCommand): Promise<{ role: number; status: number }> {
    const outcome = await this.dataSource.transaction(async (manager) => {
      // Cancelled users can be acted on too (new-api loads them unscoped). The row lock keeps two admins'
      // simultaneous actions from deciding against the same stale role.
      const target = await manager.findOne(UserEntity, { where: { id }, withDeleted: true, lock: { mode: 'pessimistic_write' } });
      if (!target) throw new UserNotFoundError();
      const decided = decideManage(action, callerRole, target);
      if (decided.role !== target.role || decided.status !== target.status) {
        await manager.update(UserEntity, { id }, { role: decided.role, status: decided.status });
      }
      if (decided.cancel && !target.deletedAt) await manager.softDelete(UserEntity, { id });
      return decided;
    });
    // The auth guard reads role and status fresh on every call, so live sessions feel this at once; caches
    // elsewhere (token auth) drop the user in every process.
    await this.invalidation.publish(USER_CHANGED_TOPIC, String(id));
    return { role: outcome.role, status: outcome.status };
  }
}
