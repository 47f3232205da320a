import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import { type Repository } from 'typeorm';
import { UserEntity } from '../../user.entity';
import { UserNotFoundError } from '../../user.errors';
import { AFF_CODE_UNIQUE, generateAffCode, isUniqueViolation } from '../../user-credentials';
import { EnsureAffCodeCommand } from './ensure-aff-code.command';

const ATTEMPTS = 20;

@CommandHandler(EnsureAffCodeCommand)
export class EnsureAffCodeHandler implements ICommandHandler<EnsureAffCodeCommand> {
  constructor(@InjectRepository(UserEntity) private readonly users: Repository<UserEntity>) {}

  async execute({ userId }: EnsureAffCodeCommand): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const user = await this.users.findOne({ where: { id: userId }, select: { id: true, affCode: true } });
      if (!user) throw new UserNotFoundError();
      if (user.affCode) return user.affCode;
      const code = generateAffCode();
      try {
        // Only fills an empty code: two simultaneous first calls end with one code, which both then return.
        await this.users
          .createQueryBuilder()
          .update(UserEntity)
          .set({ affCode: code })
          .where('id = :id AND (aff_code IS NULL OR aff_code = :empty)', { id: userId, empty: '' })
          .execute();
      } catch (error) {
        if (!isUniqueViolation(error, AFF_CODE_UNIQUE) || attempt >= ATTEMPTS) throw error;
      }
    }
  }
}
