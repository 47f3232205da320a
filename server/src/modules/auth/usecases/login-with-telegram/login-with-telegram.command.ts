import { Command } from '@nestjs/cqrs';
import type { UserEntity } from '#server/modules/users/user.entity';

/** Telegram login widget callback: bound accounts only, never a sign-up (as in new-api). */
export class LoginWithTelegramCommand extends Command<UserEntity> {
  /** `url` is the raw request URL: the signature covers the query exactly as Telegram sent it. */
  constructor(readonly url: string) {
    super();
  }
}
