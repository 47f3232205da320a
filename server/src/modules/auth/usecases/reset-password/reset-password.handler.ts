import { randomBytes } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import bcrypt from 'bcryptjs';
import { IsNull, type Repository } from 'typeorm';
import { z } from 'zod';
import { SessionService } from '#server/common/auth/session.service';
import { InvalidParamsError } from '#server/common/http/errors';
import { parseInput } from '#server/common/http/validation';
import { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { jsonString } from '../../request-input';
import { VerificationCodeStore } from '../../verification/verification-code.store';
import { ResetPasswordCommand } from './reset-password.command';

const resetBody = z.object({ email: jsonString, token: jsonString });

@CommandHandler(ResetPasswordCommand)
export class ResetPasswordHandler implements ICommandHandler<ResetPasswordCommand> {
  constructor(
    private readonly codes: VerificationCodeStore,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly sessions: SessionService,
  ) {}

  async execute({ body }: ResetPasswordCommand): Promise<string> {
    const { email, token } = parseInput(resetBody, body);
    if (!email || !token || email.length > 254 || token.length > 64) throw new InvalidParamsError();
    // Used up atomically before the password changes: two clicks on one link cannot both reset it.
    if (!(await this.codes.consume('r', email, token))) throw new AuthError('reset_link_invalid');

    // 12 hex characters, as new-api's new password.
    const password = randomBytes(6).toString('hex');
    const hash = await bcrypt.hash(password, 10);
    // Every live account with this address: they all proved ownership of it the same way.
    const live = { email, deletedAt: IsNull() };
    const result = await this.users.update(live, { password: hash });
    if (!result.affected) throw new AuthError('email_not_registered');
    // Whoever held a session under the old password is logged out.
    for (const { id } of await this.users.find({ where: live, select: { id: true } })) await this.sessions.endUserSessions(id);
    return password;
  }
}
