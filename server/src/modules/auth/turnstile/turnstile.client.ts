import { Inject, Injectable, Logger } from '@nestjs/common';
import { request } from 'undici';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';

/** Cloudflare's siteverify (https://developers.cloudflare.com/turnstile/get-started/server-side-validation/). */
@Injectable()
export class TurnstileClient {
  private readonly logger = new Logger(TurnstileClient.name);

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** True only for an explicit `success: true`; network and format failures count as a failed check. */
  async verify(secret: string, token: string, remoteIp: string): Promise<boolean> {
    try {
      const response = await request(this.config.TURNSTILE_VERIFY_URL, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret, response: token, remoteip: remoteIp }).toString(),
        signal: AbortSignal.timeout(this.config.OAUTH_TIMEOUT_MS),
      });
      const body = (await response.body.json()) as { success?: unknown; 'error-codes'?: unknown };
      if (body?.success !== true) this.logger.log(`Turnstile refused: ${JSON.stringify(body?.['error-codes'] ?? [])}`);
      return body?.success === true;
    } catch (error) {
      this.logger.warn(`Turnstile siteverify failed: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    }
  }
}
