import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis/redis.constants';
import { RedisKeys } from '../../infrastructure/redis/redis-keys';

export const SESSION_COOKIE = 'session';

/** What a session holds. Role and status are NOT cached here: the guard re-reads the user on every call. */
export interface SessionData {
  userId?: number;
  username?: string;
  oauthState?: string;
  turnstile?: boolean;
}

interface RequestWithSession extends FastifyRequest {
  tollgateSession?: { id: string | null; data: SessionData };
}

/**
 * Cookie sessions stored in Redis (cookie `session`, signed, 30 days): any api replica can serve any session,
 * and a session can be ended server-side.
 */
@Injectable()
export class SessionService {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private key(id: string): string {
    return this.keys.key('session', id);
  }

  private cookieId(request: FastifyRequest): string | null {
    const raw = request.cookies?.[SESSION_COOKIE];
    if (!raw) return null;
    const unsigned = request.unsignCookie(raw);
    return unsigned.valid && unsigned.value ? unsigned.value : null;
  }

  /** The request's session, read from Redis once per request. */
  async get(request: FastifyRequest): Promise<SessionData> {
    const holder = request as RequestWithSession;
    if (holder.tollgateSession) return holder.tollgateSession.data;
    const id = this.cookieId(request);
    let data: SessionData = {};
    if (id) {
      const stored = await this.redis.get(this.key(id));
      if (stored) data = JSON.parse(stored) as SessionData;
    }
    holder.tollgateSession = { id: id && Object.keys(data).length ? id : id, data };
    return data;
  }

  /** Merges `patch` into the session, creating it (and its cookie) when needed. */
  async update(request: FastifyRequest, reply: FastifyReply, patch: Partial<SessionData>): Promise<SessionData> {
    const current = await this.get(request);
    const holder = request as RequestWithSession;
    let id = holder.tollgateSession?.id ?? null;
    if (!id) {
      id = randomBytes(24).toString('base64url');
      this.setCookie(reply, id);
    }
    const data = { ...current, ...patch };
    await this.redis.set(this.key(id), JSON.stringify(data), 'EX', this.config.SESSION_TTL_SECONDS);
    holder.tollgateSession = { id, data };
    return data;
  }

  /** A new session id on login (prevents fixation), keeping pre-login flags such as the Turnstile pass. */
  async startLogin(request: FastifyRequest, reply: FastifyReply, user: { id: number; username: string }): Promise<void> {
    const previous = await this.get(request);
    await this.destroy(request, reply);
    const id = randomBytes(24).toString('base64url');
    const data: SessionData = { turnstile: previous.turnstile, userId: user.id, username: user.username };
    await this.redis.set(this.key(id), JSON.stringify(data), 'EX', this.config.SESSION_TTL_SECONDS);
    this.setCookie(reply, id);
    (request as RequestWithSession).tollgateSession = { id, data };
  }

  async destroy(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = this.cookieId(request);
    if (id) await this.redis.del(this.key(id));
    (request as RequestWithSession).tollgateSession = { id: null, data: {} };
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  private setCookie(reply: FastifyReply, id: string): void {
    void reply.setCookie(SESSION_COOKIE, id, {
      path: '/',
      signed: true,
      httpOnly: true,
      sameSite: 'lax',
      maxAge: this.config.SESSION_TTL_SECONDS,
    });
  }
}
