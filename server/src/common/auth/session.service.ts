import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS_CONSOLE } from '../../infrastructure/redis/redis.constants';
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
 * and a session can be ended server-side. Each user's logged-in session ids are also kept in a per-user set, so a
 * password change can end them all; the guard reads only the session itself (no extra round trip per request).
 */
@Injectable()
export class SessionService {
  constructor(
    @Inject(REDIS_CONSOLE) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  private key(id: string): string {
    return this.keys.key('session', id);
  }

  private userKey(userId: number): string {
    return this.keys.key('session-user', userId);
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
    const ttl = this.config.SESSION_TTL_SECONDS;
    // The index lives as long as the newest session in it; ids of sessions that expired before are harmless.
    await this.redis
      .multi()
      .set(this.key(id), JSON.stringify(data), 'EX', ttl)
      .sadd(this.userKey(user.id), id)
      .expire(this.userKey(user.id), ttl)
      .exec();
    this.setCookie(reply, id);
    (request as RequestWithSession).tollgateSession = { id, data };
  }

  async destroy(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const id = this.cookieId(request);
    if (id) {
      const { userId } = await this.get(request);
      const ending = this.redis.multi().del(this.key(id));
      if (userId) ending.srem(this.userKey(userId), id);
      await ending.exec();
    }
    (request as RequestWithSession).tollgateSession = { id: null, data: {} };
    void reply.clearCookie(SESSION_COOKIE, { path: '/' });
  }

  /**
   * Ends every session of `userId` (after a password change or reset, or "log out everywhere"), except the one
   * `keep` carries when it belongs to that user.
   */
  async endUserSessions(userId: number, keep?: FastifyRequest): Promise<void> {
    const kept = keep ? this.cookieId(keep) : null;
    const keptOwn = kept !== null && keep !== undefined && (await this.get(keep)).userId === userId ? kept : null;
    const ids = (await this.redis.smembers(this.userKey(userId))).filter((id) => id !== keptOwn);
    if (ids.length === 0) return;
    await this.redis
      .multi()
      .del(...ids.map((id) => this.key(id)))
      .srem(this.userKey(userId), ...ids)
      .exec();
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
