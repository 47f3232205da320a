import { Command } from '@nestjs/cqrs';

/** Binds a GitHub account to the logged-in user: the OAuth callback arriving with a session. */
export class BindGitHubCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly code: string,
  ) {
    super();
  }
}
