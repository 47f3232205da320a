import { Command } from '@nestjs/cqrs';

/** GET /api/user/token: every call makes a new system access token, replaces the old one and returns it. */
export class GenerateAccessTokenCommand extends Command<string> {
  constructor(readonly userId: number) {
    super();
  }
}
