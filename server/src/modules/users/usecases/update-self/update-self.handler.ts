import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import bcrypt from 'bcryptjs';
import type { Repository } from 'typeorm';
import { UserEntity } from '../../user.entity';
import { UsernameTakenError, UserNotFoundError } from '../../user.errors';
import { isUniqueViolation, USERNAME_UNIQUE } from '../../user-credentials';
import { normaliseName, validateProfile } from '../../user-input';
import { UpdateSelfCommand } from './update-self.command';

@CommandHandler(UpdateSelfCommand)
export class UpdateSelfHandler implements ICommandHandler<UpdateSelfCommand> {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  async execute({ input }: UpdateSelfCommand): Promise<void> {
    const username = normaliseName(input.username);
    const displayName = normaliseName(input.displayName);
    validateProfile({ username, display_name: displayName, password: input.password });
    const changes: Partial<UserEntity> = {};
    if (username) changes.username = username;
    if (displayName) changes.displayName = displayName;
    if (input.password) changes.password = await bcrypt.hash(input.password, 10);
    if (Object.keys(changes).length === 0) {
      if (!(await this.users.exists({ where: { id: input.userId } }))) throw new UserNotFoundError();
      return;
    }
    try {
      const result = await this.users.update({ id: input.userId }, changes);
      if (!result.affected) throw new UserNotFoundError();
    } catch (error) {
      // new-api surfaces the raw unique-constraint error here; a taken name gets a clear message instead.
      if (isUniqueViolation(error, USERNAME_UNIQUE)) throw new UsernameTakenError();
      throw error;
    }
  }
}
