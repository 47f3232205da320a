import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { InvalidParamsError } from '#server/common/http/errors';
import { MailService } from '#server/modules/mail/mail.service';
import { OptionsService } from '#server/modules/options/options.service';
import { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { verificationMail } from '../../auth-mails';
import { assertEmailAllowed, isValidEmail } from '../../email-rules';
import { newVerificationCode, VerificationCodeStore } from '../../verification/verification-code.store';
import { SendVerificationCodeCommand } from './send-verification-code.command';

@CommandHandler(SendVerificationCodeCommand)
export class SendVerificationCodeHandler implements ICommandHandler<SendVerificationCodeCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly codes: VerificationCodeStore,
    private readonly mail: MailService,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  async execute({ email }: SendVerificationCodeCommand): Promise<void> {
    if (!isValidEmail(email)) throw new InvalidParamsError();
    assertEmailAllowed(email, {
      domainRestrictionEnabled: this.options.getBool('EmailDomainRestrictionEnabled'),
      domainWhitelist: this.options.get('EmailDomainWhitelist'),
      aliasRestrictionEnabled: this.options.getBool('EmailAliasRestrictionEnabled'),
    });
    // Cancelled accounts keep their address: it cannot be taken over by a new account.
    if (await this.users.exists({ where: { email }, withDeleted: true })) throw new AuthError('email_taken');
    this.mail.assertConfigured();

    const code = newVerificationCode();
    await this.codes.issue('v', email, code);
    await this.mail.enqueue(verificationMail(this.options.get('SystemName'), email, code));
  }
}
