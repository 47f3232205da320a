import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { OptionsService } from '#server/modules/options/options.service';
import { CreateUserCommand } from '#server/modules/users/usecases/create-user/create-user.command';
import { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { VerificationCodeStore } from '../../verification/verification-code.store';
import { parseRegisterInput } from './register-input';
import { RegisterUserCommand } from './register-user.command';

/**
 * new-api's checks in its order: switches, body, email code, name taken (soft-deleted users
 * included), inviter. The account itself, and the quota it is granted, are made by CreateUserCommand.
 */
@CommandHandler(RegisterUserCommand)
export class RegisterUserHandler implements ICommandHandler<RegisterUserCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly codes: VerificationCodeStore,
    private readonly commandBus: CommandBus,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  async execute({ body, context }: RegisterUserCommand): Promise<{ id: number }> {
    if (!this.options.getBool('RegisterEnabled')) throw new AuthError('register_disabled');
    if (!this.options.getBool('PasswordRegisterEnabled')) throw new AuthError('password_register_disabled');
    const input = parseRegisterInput(body);

    const verify = this.options.getBool('EmailVerificationEnabled');
    if (verify) {
      if (!input.email || !input.verification_code) throw new AuthError('email_verification_required');
      if (!(await this.codes.check('v', input.email, input.verification_code))) throw new AuthError('verification_code_invalid');
    }
    if (await this.isTaken(input.username, input.email)) throw new AuthError('username_taken');
    const inviterId = await this.inviterOf(input.aff_code);

    // Fix of new-api, whose codes were reusable for 10 minutes: a code registers one account. Used up only now,
    // after every other check passed, so a refused attempt (name taken…) does not cost the user their code.
    if (verify && !(await this.codes.consume('v', input.email, input.verification_code))) {
      throw new AuthError('verification_code_invalid');
    }
    return this.commandBus.execute(
      new CreateUserCommand({
        username: input.username,
        password: input.password,
        displayName: input.username,
        // The address is kept only when it was proven by a code.
        ...(verify ? { email: input.email } : {}),
        inviterId,
        source: 'register',
        actor: { type: 'system' },
        correlationId: context.correlationId,
        clientIp: context.clientIp,
      }),
    );
  }

  /** The username, or the email when one is given, already used by any user, cancelled ones included. */
  private async isTaken(username: string, email: string): Promise<boolean> {
    const where = email ? [{ username }, { email }] : [{ username }];
    return this.users.exists({ where, withDeleted: true });
  }

  /** `aff_code` is the inviter's code; an unknown one silently means no inviter. */
  private async inviterOf(affCode: string): Promise<number> {
    if (!affCode) return 0;
    const inviter = await this.users.findOne({ where: { affCode }, select: { id: true } });
    return inviter?.id ?? 0;
  }
}
