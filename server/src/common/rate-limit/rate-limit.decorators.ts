import { applyDecorators, SetMetadata } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';

/** Nest metadata key, for code and tests that list the critical routes by reflection. */
export const CRITICAL_RATE_LIMIT = 'tollgate:critical-rate-limit';

/** The Fastify route config flag the rate-limit hook reads (hooks see route config, not Nest metadata). */
export const CRITICAL_ROUTE_CONFIG = 'tollgateCriticalRateLimit';

/**
 * new-api's CriticalRateLimit: CRITICAL_RATE_LIMIT requests per CRITICAL_RATE_WINDOW_SECONDS per client IP, one
 * bucket shared by every critical route, checked after the global API limit. Put it on register, login,
 * verification, reset_password, user/reset and every /api/oauth/* route.
 *
 * It is enforced in a Fastify onRequest hook (before body parsing and before any guard), so its position
 * among a handler's decorators does not matter. It uses Fastify's route config: do not combine it with
 * another @RouteConfig() on the same handler (the last one would win).
 */
export const CriticalRateLimit = () =>
  applyDecorators(SetMetadata(CRITICAL_RATE_LIMIT, true), RouteConfig({ [CRITICAL_ROUTE_CONFIG]: true }));
