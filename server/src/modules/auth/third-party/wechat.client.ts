import { Inject, Injectable, Logger } from '@nestjs/common';
import { z } from 'zod';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { DomainError } from '#server/common/http/errors';
import { OptionsService } from '../../options/options.service';
import { AuthError } from '../auth.errors';
import { requestJson } from './http-json';

const answer = z.object({ success: z.boolean().optional(), message: z.string().optional(), data: z.unknown() }).loose();

/**
 * The separate "WeChat server" that turns a code the user typed from the official account into a
 * WeChat id: `GET {WeChatServerAddress}/api/wechat/user?code=` with `Authorization: <WeChatServerToken>`.
 */
@Injectable()
export class WeChatClient {
  private readonly logger = new Logger(WeChatClient.name);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly options: OptionsService,
  ) {}

  async wechatIdForCode(code: string): Promise<string> {
    const base = this.options.get('WeChatServerAddress').replace(/\/+$/, '');
    let body: z.infer<typeof answer> | undefined;
    try {
      const response = await requestJson({
        method: 'GET',
        url: `${base}/api/wechat/user?code=${encodeURIComponent(code)}`,
        headers: { authorization: this.options.get('WeChatServerToken') },
        timeoutMs: this.config.OAUTH_TIMEOUT_MS,
      });
      body = answer.safeParse(response.body).data;
    } catch (error) {
      this.logger.warn(`WeChat server call failed: ${error instanceof Error ? error.message : String(error)}`);
      throw new AuthError('wechat_unreachable');
    }
    if (!body) throw new AuthError('wechat_unreachable');
    // The WeChat server's own refusal is shown as it is, as new-api does.
    if (!body.success) throw new DomainError(body.message || '验证码错误或已过期', 'wechat_refused');
    const id = typeof body.data === 'string' ? body.data : '';
    if (!id) throw new AuthError('verification_code_invalid');
    if (id.length > 64) throw new AuthError('wechat_unreachable');
    return id;
  }
}
