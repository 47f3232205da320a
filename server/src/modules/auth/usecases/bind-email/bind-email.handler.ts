import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, Not, type Repository } from 'typeorm';
import { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { VerificationCodeStore } from '../../verification/verification-code.store';
import { BindEmailCommand } from './bind-email.command';

@CommandHandler(BindEmailCommand)
export class BindEmailHandler implements ICommandHandler<BindEmailCommand> {
  constructor(
    private readonly codes: VerificationCodeStore,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  async execute({ userId, email, code }: BindEmailCommand): Promise<void> {
    if (!(await this.codes.check('v', email, code))) throw new AuthError('verification_code_invalid');
    // Ours: the address may have been registered by someone else since the code was sent.
    if (await this.users.exists({ where: { email, id: Not(userId) }, withDeleted: true })) throw new AuthError('email_taken');
    if (!(await this.codes.consume('v', email, code))) throw new AuthError('verification_code_invalid');
    const result = await this.users.update({ id: userId, deletedAt: IsNull() }, { email });
    if (!result.affected) throw new AuthError('user_deleted');
  }
}
