import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import bcrypt from 'bcryptjs';
import { DataSource } from 'typeorm';
import { CacheInvalidationService } from '#server/infrastructure/redis/cache-invalidation.service';
import { userActor } from '#server/ledger/event-envelope';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { AdjustQuotaByAdminCommand } from '#server/modules/accounts/usecases/adjust-quota-by-admin/adjust-quota-by-admin.command';
import { Role, UserEntity } from '../../user.entity';
import { UserActionRefusedError, UsernameTakenError, UserNotFoundError } from '../../user.errors';
import { isUniqueViolation, USERNAME_UNIQUE } from '../../user-credentials';
import { InvalidInputError, normaliseName, validateProfile } from '../../user-input';
import { USER_CHANGED_TOPIC } from '../../users.topics';
import { EditUserCommand } from './edit-user.command';

@CommandHandler(EditUserCommand)
export class EditUserHandler implements ICommandHandler<EditUserCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly commandBus: CommandBus,
    private readonly readYourWrites: ReadYourWrites,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  async execute({ input: raw }: EditUserCommand): Promise<void> {
    // Names are stored NFKC-normalised, so a look-alike of a taken name is taken.
    const input = { ...raw, username: normaliseName(raw.username), displayName: normaliseName(raw.displayName) };
    validateProfile({ username: input.username, display_name: input.displayName, password: input.password, group: input.group });
    // new-api would write an empty username (its form always sends one); an account nobody can name is refused.
    if (input.username === '') throw new InvalidInputError('用户名不能为空');
    if (input.quota !== undefined && input.quota < 0) throw new InvalidInputError('额度不能小于 0');
    const password = input.password ? await bcrypt.hash(input.password, 10) : undefined;

    let position = 0;
    try {
      await this.dataSource.transaction(async (manager) => {
        const target = await manager.findOne(UserEntity, { where: { id: input.id }, lock: { mode: 'pessimistic_write' } });
        if (!target) throw new UserNotFoundError();
        const isRoot = input.callerRole === Role.Root;
        if (input.callerRole <= target.role && !isRoot) throw new UserActionRefusedError('cannot_update_peer');
        if (input.role !== undefined && input.callerRole <= input.role && !isRoot) throw new UserActionRefusedError('cannot_raise_to_peer');

        const changes: Partial<UserEntity> = {};
        if (input.username !== undefined) changes.username = input.username;
        if (input.displayName !== undefined) changes.displayName = input.displayName;
        if (input.group !== undefined) changes.group = input.group;
        if (password) changes.password = password;
        if (Object.keys(changes).length) await manager.update(UserEntity, { id: input.id }, changes);

        if (input.quota !== undefined) {
          // Appended inside the transaction: a refused quota edit (the account moved) rolls the profile back too.
          const result = await this.commandBus.execute(
            new AdjustQuotaByAdminCommand({
              userId: input.id,
              username: changes.username ?? target.username,
              quota: input.quota,
              basisRevision: input.accountRevision,
              adminId: input.callerId,
              actor: userActor(input.callerId, input.callerRole),
              correlationId: input.correlationId,
              clientIp: input.clientIp,
            }),
          );
          position = result.position;
        }
      });
    } catch (error) {
      if (isUniqueViolation(error, USERNAME_UNIQUE)) throw new UsernameTakenError();
      throw error;
    }
    await this.invalidation.publish(USER_CHANGED_TOPIC, String(input.id));
    await this.readYourWrites.wait(position);
  }
}
