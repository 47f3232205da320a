import { Command } from '@nestjs/cqrs';

/** GET /api/user/token: a new system access token replaces the old one and is returned (reference §2.3). */
export class GenerateAccessTokenCommand extends Command<string> {
  constructor(readonly userId: number) {
    super();
  }
}
