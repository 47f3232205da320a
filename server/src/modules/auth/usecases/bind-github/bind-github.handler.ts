import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InvalidParamsError } from '#server/common/http/errors';
import { OptionsService } from '#server/modules/options/options.service';
import { AuthError } from '../../auth.errors';
import { ExternalAccountsService } from '../../third-party/external-accounts.service';
import { GitHubClient } from '../../third-party/github.client';
import { BindGitHubCommand } from './bind-github.command';

@CommandHandler(BindGitHubCommand)
export class BindGitHubHandler implements ICommandHandler<BindGitHubCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly github: GitHubClient,
    private readonly accounts: ExternalAccountsService,
  ) {}

  async execute({ userId, code }: BindGitHubCommand): Promise<void> {
    if (!this.options.getBool('GitHubOAuthEnabled')) throw new AuthError('github_disabled');
    // Ours: new-api bound through any session, even one whose user was since banned or cancelled.
    await this.accounts.activeUser(userId);
    if (!code || code.length > 512) throw new InvalidParamsError();
    const githubUser = await this.github.userForCode(code);
    await this.accounts.bind('githubId', githubUser.login, userId, 'github_already_bound');
  }
}
