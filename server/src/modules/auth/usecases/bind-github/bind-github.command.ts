import { Command } from '@nestjs/cqrs';

/** Binds a GitHub account to the logged-in user: the OAuth callback with a session (§3.8). */
export class BindGitHubCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly code: string,
  ) {
    super();
  }
}
