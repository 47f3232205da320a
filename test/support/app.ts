import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import request from 'supertest';
import { type AppConfig, parseConfig, type RuntimeRole } from '#server/config/app-config';
import { createHttpApp } from '#server/http-app';
import { createTestDatabase, type TestDatabase, testRedisPrefix, testRedisUrl } from './database';

export interface TestApp {
  app: NestFastifyApplication;
  config: AppConfig;
  database: TestDatabase;
  /** supertest against the in-process server. */
  http: () => request.Agent;
  close(): Promise<void>;
}

/**
 * The whole product (api + worker + projector by default) on a fresh database and a private Redis prefix.
 * `env` overrides configuration exactly as environment variables would.
 */
export async function createTestApp(
  options: { env?: Record<string, string>; roles?: RuntimeRole[]; redisUrl?: string } = {},
): Promise<TestApp> {
  const database = await createTestDatabase();
  const env = parseConfig({
    GLOBAL_API_RATE_LIMIT: '100000',
    CRITICAL_RATE_LIMIT: '100000',
    GLOBAL_WEB_RATE_LIMIT: '100000',
    SESSION_SECRET: 'test-session-secret-test-session-secret',
    SECRETS_KEY: 'test-secrets-key-test-secrets-key-test',
    CONSOLE_DIST: '/nonexistent-console-dist',
    READ_YOUR_WRITES_TIMEOUT_MS: '10000',
    ...options.env,
  });
  const config: AppConfig = {
    ...env,
    DATABASE_URL: database.url,
    REDIS_URL: options.redisUrl ?? testRedisUrl(),
    REDIS_PREFIX: options.env?.REDIS_PREFIX ?? testRedisPrefix(),
    roles: options.roles ?? ['api', 'worker', 'projector'],
  };
  const app = await createHttpApp(config, { logger: process.env.TEST_LOGS === '1' });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    config,
    database,
    http: () => request.agent(app.getHttpServer()),
    async close() {
      await app.close();
      await database.drop();
    },
  };
}
