import { Inject, Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { OptionsService } from '../../options/options.service';
import { AuthError } from '../auth.errors';
import { requestJson, ThirdPartyUnreachableError } from './http-json';

export interface GitHubUser {
  /** The handle: new-api stores it (not the numeric id) as github_id. */
  login: string;
  name: string;
  email: string;
}

const tokenAnswer = z.object({ access_token: z.string().optional() }).loose();
const userAnswer = z
  .object({
    login: z.string().optional(),
    name: z.string().nullish(),
    email: z.string().nullish(),
  })
  .loose();

/** GitHub's OAuth web flow: code → access token → /user. Hosts come from app-config for tests. */
@Injectable()
export class GitHubClient {
  private readonly logger = new Logger(GitHubClient.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly options: OptionsService,
  ) {}

  async userForCode(code: string): Promise<GitHubUser> {
    try {
      const token = await requestJson({
        method: 'POST',
        url: `${this.config.GITHUB_OAUTH_URL}/login/oauth/access_token`,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({
          client_id: this.options.get('GitHubClientId'),
          client_secret: this.options.get('GitHubClientSecret'),
          code,
        }),
        timeoutMs: this.config.OAUTH_TIMEOUT_MS,
      });
      const accessToken = tokenAnswer.safeParse(token.body).data?.access_token;
      // GitHub answers a bad code with HTTP 200 and {"error":…}; new-api then got an empty /user.
      if (!accessToken) throw new AuthError('github_invalid_response');
      const user = await requestJson({
        method: 'GET',
        url: `${this.config.GITHUB_API_URL}/user`,
        headers: { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json' },
        timeoutMs: this.config.OAUTH_TIMEOUT_MS,
      });
      const parsed = userAnswer.safeParse(user.body).data;
      if (!parsed?.login || parsed.login.length > 64) throw new AuthError('github_invalid_response');
      return { login: parsed.login, name: parsed.name ?? '', email: parsed.email ?? '' };
    } catch (error) {
      if (error instanceof AuthError) throw error;
      this.logger.warn(`GitHub OAuth failed: ${error instanceof Error ? error.message : String(error)}`);
      throw new AuthError(error instanceof ThirdPartyUnreachableError ? 'github_unreachable' : 'github_invalid_response');
    }
  }
}
