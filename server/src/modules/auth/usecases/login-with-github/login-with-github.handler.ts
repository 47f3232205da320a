import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InvalidParamsError } from '#server/common/http/errors';
import { OptionsService } from '#server/modules/options/options.service';
import type { UserEntity } from '#server/modules/users/user.entity';
import { AuthError } from '../../auth.errors';
import { isValidEmail } from '../../email-rules';
import { ExternalAccountsService } from '../../third-party/external-accounts.service';
import { GitHubClient } from '../../third-party/github.client';
import { LoginWithGitHubCommand } from './login-with-github.command';

/** display_name is limited to 20 characters (the profile rule); GitHub names can be longer. */
const DISPLAY_NAME_MAX = 20;

@CommandHandler(LoginWithGitHubCommand)
export class LoginWithGitHubHandler implements ICommandHandler<LoginWithGitHubCommand> {
  constructor(
    private readonly options: OptionsService,
    private readonly github: GitHubClient,
    private readonly accounts: ExternalAccountsService,
  ) {}

  async execute({ code, context }: LoginWithGitHubCommand): Promise<UserEntity> {
    if (!this.options.getBool('GitHubOAuthEnabled')) throw new AuthError('github_disabled');
    if (!code || code.length > 512) throw new InvalidParamsError();
    const githubUser = await this.github.userForCode(code);
    const name = githubUser.name.trim();
    return this.accounts.signInOrSignUp(
      'githubId',
      githubUser.login,
      {
        usernamePrefix: 'github_',
        displayName: name ? [...name].slice(0, DISPLAY_NAME_MAX).join('') : 'GitHub User',
        // The public address, kept only when it is one and fits the field (isValidEmail checks both).
        email: isValidEmail(githubUser.email) ? githubUser.email : '',
      },
      context,
    );
  }
}
