import { applyDecorators, type CanActivate, type ExecutionContext, Injectable, UseGuards } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SessionService } from '#server/common/auth/session.service';
import { OptionsService } from '../../options/options.service';
import { AuthError } from '../auth.errors';
import { TurnstileClient } from './turnstile.client';

/**
 * new-api's TurnstileCheck: with TurnstileCheckEnabled, the `turnstile` query token is checked
 * once, and the pass is remembered in the session for the rest of it, so a wrong password does not burn
 * the token for the next attempt.
 */
@Injectable()
export class TurnstileGuard implements CanActivate {
  constructor(
    private readonly options: OptionsService,
    private readonly sessions: SessionService,
    private readonly client: TurnstileClient,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.options.getBool('TurnstileCheckEnabled')) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const session = await this.sessions.get(request);
    if (session.turnstile) return true;
    const query = (request.query ?? {}) as Record<string, unknown>;
    const raw = Array.isArray(query.turnstile) ? query.turnstile[0] : query.turnstile;
    const token = typeof raw === 'string' ? raw : '';
    if (!token) throw new AuthError('turnstile_token_empty');
    // Cloudflare tokens are at most 2048 characters; anything longer is not worth a round trip.
    if (token.length > 4096) throw new AuthError('turnstile_failed');
    const passed = await this.client.verify(this.options.get('TurnstileSecretKey'), token, request.ip);
    if (!passed) throw new AuthError('turnstile_failed');
    await this.sessions.update(request, http.getResponse<FastifyReply>(), { turnstile: true });
    return true;
  }
}

/** Turnstile check for login, register, verification and reset_password, as new-api applies it. */
export const TurnstileCheck = () => applyDecorators(UseGuards(TurnstileGuard));
