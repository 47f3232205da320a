import { applyDecorators, createParamDecorator, type ExecutionContext, SetMetadata, UseGuards } from '@nestjs/common';
import { AuthGuard } from './auth.guard';

export const MIN_ROLE = 'tollgate:min-role';

/** The caller as the auth guard resolved it (fresh from the database, never from a stale session). */
export interface AuthenticatedUser {
  id: number;
  username: string;
  role: number;
  status: number;
  group: string;
  /** True when the call was authenticated by the system access token rather than a session. */
  useAccessToken: boolean;
}

export const UserAuth = () => applyDecorators(SetMetadata(MIN_ROLE, 1), UseGuards(AuthGuard));
export const AdminAuth = () => applyDecorators(SetMetadata(MIN_ROLE, 10), UseGuards(AuthGuard));
export const RootAuth = () => applyDecorators(SetMetadata(MIN_ROLE, 100), UseGuards(AuthGuard));

export const CurrentUser = createParamDecorator((_: unknown, context: ExecutionContext): AuthenticatedUser => {
  const request = context.switchToHttp().getRequest<{ auth?: AuthenticatedUser }>();
  if (!request.auth) throw new Error('CurrentUser used on a route without an auth decorator');
  return request.auth;
});

/** Client IP for event metadata and rate limits (Fastify honours trustProxy when configured). */
export const ClientIp = createParamDecorator((_: unknown, context: ExecutionContext): string => {
  return context.switchToHttp().getRequest<{ ip: string }>().ip;
});
