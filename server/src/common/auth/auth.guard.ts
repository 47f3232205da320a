import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { DomainError, UnauthenticatedError } from '../http/errors';
import { type AuthenticatedUser, MIN_ROLE } from './auth.decorators';
import { AUTH_USER_LOOKUP, type AuthUserLookup, type AuthUserRecord } from './auth-user-lookup.port';
import { SessionService } from './session.service';

const VALID_ROLES = new Set([0, 1, 10, 100]);

/**
 * new-api's UserAuth / AdminAuth / RootAuth, differing only in the minimum role (1, 10, 100).
 * Deliberate fix of new-api: role and status are read from the database on every call, so disabling,
 * demoting or deleting a user takes effect on their live sessions at once (docs/console-api.md).
 */
@Injectable()
export class AuthGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionService,
    @Inject(AUTH_USER_LOOKUP) private readonly users: AuthUserLookup,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const minRole = this.reflector.getAllAndOverride<number>(MIN_ROLE, [context.getHandler(), context.getClass()]) ?? 1;
    const request = context.switchToHttp().getRequest<FastifyRequest & { auth?: AuthenticatedUser }>();
    const session = await this.sessions.get(request);
    let user: AuthUserRecord | null;
    let useAccessToken = false;

    if (session.username && session.userId) {
      const header = request.headers['new-api-user'];
      const value = Array.isArray(header) ? header[0] : header;
      if (value === undefined || value === '') throw new UnauthenticatedError('无权进行此操作，请刷新页面或清空缓存后重试');
      if (!/^-?\d+$/.test(value.trim())) throw new UnauthenticatedError('无权进行此操作，登录信息无效，请重新登录');
      if (Number(value) !== session.userId) throw new UnauthenticatedError('无权进行此操作，与登录用户不匹配，请重新登录');
      user = await this.users.findById(session.userId);
      if (!user) throw new UnauthenticatedError('无权进行此操作，登录信息无效，请重新登录');
    } else {
      const authorization = request.headers.authorization;
      if (!authorization) throw new UnauthenticatedError('无权进行此操作，未登录且未提供 access token');
      const token = authorization.replace(/^Bearer /, '').trim();
      user = token ? await this.users.findByAccessToken(token) : null;
      if (!user) throw new DomainError('无权进行此操作，access token 无效', 'access_token_invalid');
      useAccessToken = true;
    }

    if (user.status === 2) throw new DomainError('用户已被封禁', 'user_disabled');
    if (user.role < minRole) throw new DomainError('无权进行此操作，权限不足', 'insufficient_role');
    if (!user.username || !VALID_ROLES.has(user.role)) throw new DomainError('无权进行此操作，用户信息无效', 'invalid_user');

    request.auth = { id: user.id, username: user.username, role: user.role, status: user.status, group: user.group, useAccessToken };
    return true;
  }
}
