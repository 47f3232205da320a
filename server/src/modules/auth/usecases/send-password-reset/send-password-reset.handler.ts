import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { InvalidParamsError } from '#server/common/http/errors';
import { MailService } from '#server/modules/mail/mail.service';
import { DEFAULT_SERVER_ADDRESS } from '#server/modules/options/option-defaults';
import { OptionsService } from '#server/modules/options/options.service';
import { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { passwordResetLink, passwordResetMail } from '../../auth-mails';
import { isValidEmail } from '../../email-rules';
import { newResetToken, VerificationCodeStore } from '../../verification/verification-code.store';
import { SendPasswordResetCommand } from './send-password-reset.command';

@CommandHandler(SendPasswordResetCommand)
export class SendPasswordResetHandler implements ICommandHandler<SendPasswordResetCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly codes: VerificationCodeStore,
    private readonly mail: MailService,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  async execute({ email }: SendPasswordResetCommand): Promise<void> {
    if (!isValidEmail(email)) throw new InvalidParamsError();
    if (!(await this.users.exists({ where: { email } }))) throw new AuthError('email_not_registered');
    this.mail.assertConfigured();

    const token = newResetToken();
    await this.codes.issue('r', email, token);
    const link = passwordResetLink(this.options.get('ServerAddress') || DEFAULT_SERVER_ADDRESS, email, token);
    await this.mail.enqueue(passwordResetMail(this.options.get('SystemName'), email, link));
  }
}
