import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CacheInvalidationService } from '#server/infrastructure/redis/cache-invalidation.service';
import { Role, UserEntity } from '../../user.entity';
import { UserActionRefusedError, UserNotFoundError } from '../../user.errors';
import { USER_CHANGED_TOPIC } from '../../users.topics';
import { DeleteSelfCommand } from './delete-self.command';

@CommandHandler(DeleteSelfCommand)
export class DeleteSelfHandler implements ICommandHandler<DeleteSelfCommand> {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  async execute({ userId }: DeleteSelfCommand): Promise<void> {
    const user = await this.users.findOne({ where: { id: userId } });
    if (!user) throw new UserNotFoundError();
    if (user.role === Role.Root) throw new UserActionRefusedError('root_cannot_delete_self');
    await this.users.softDelete({ id: userId });
    await this.invalidation.publish(USER_CHANGED_TOPIC, String(userId));
  }
}
