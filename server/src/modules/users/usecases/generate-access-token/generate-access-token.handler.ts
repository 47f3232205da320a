import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { CacheInvalidationService } from '#server/infrastructure/redis/cache-invalidation.service';
import { ConflictError } from '#server/common/http/errors';
import { UserEntity } from '../../user.entity';
import { USER_MESSAGES, UserNotFoundError } from '../../user.errors';
import { ACCESS_TOKEN_UNIQUE, generateAccessToken, isUniqueViolation } from '../../user-credentials';
import { USER_CHANGED_TOPIC } from '../../users.topics';
import { GenerateAccessTokenCommand } from './generate-access-token.command';

@CommandHandler(GenerateAccessTokenCommand)
export class GenerateAccessTokenHandler implements ICommandHandler<GenerateAccessTokenCommand> {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  async execute({ userId }: GenerateAccessTokenCommand): Promise<string> {
    const token = generateAccessToken();
    try {
      const result = await this.users.update({ id: userId }, { accessToken: token });
      if (!result.affected) throw new UserNotFoundError();
    } catch (error) {
      // 128+ random bits make this practically impossible; new-api answers it with this message.
      if (isUniqueViolation(error, ACCESS_TOKEN_UNIQUE)) throw new ConflictError(USER_MESSAGES.access_token_collision);
      throw error;
    }
    await this.invalidation.publish(USER_CHANGED_TOPIC, String(userId));
    return token;
  }
}
