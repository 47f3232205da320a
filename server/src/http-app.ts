import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyHelmet from '@fastify/helmet';
import fastifyStatic from '@fastify/static';
import { type INestApplication, Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppModule } from './app.module';
import { ConsoleExceptionFilter } from './common/http/console-exception.filter';
import { answerFrameworkError, MAX_PATH_PARAM_LENGTH } from './common/http/framework-errors';
import { SECURITY_HEADERS } from './common/http/security-headers';
import { HTTP_BODY_LIMIT } from './common/http/server-options';
import type { AppConfig } from './config/app-config';
import { resolveSessionSecret } from './config/session-secret';
import { uuidV7 } from './ledger/event-ids';

/** Builds the Fastify-based Nest application with everything HTTP needs; shared by main.ts and tests. */
export async function createHttpApp(config: AppConfig, options: { logger?: boolean } = {}): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: HTTP_BODY_LIMIT,
    trustProxy: config.TRUST_PROXY,
    // Always our own id: relay charges derive their event id from it, so a client-chosen id could replay one.
    // UUID v7 (time-ordered): a relay charge's event id is its request id (docs/ledger.md, "QuotaConsumed as stored").
    genReqId: () => uuidV7(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: MAX_PATH_PARAM_LENGTH },
    // Bad URLs the router refuses before any route runs answer in the documented shapes (framework-errors.ts).
    frameworkErrors: answerFrameworkError,
  });
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoot(config), adapter, {
    logger: options.logger === false ? false : nestLogLevels(config.LOG_LEVEL),
    bufferLogs: false,
  });
  await configureHttpApp(app, config);
  return app;
}

/** LOG_LEVEL (pino-style names) as the Nest logger's levels. */
export function nestLogLevels(level: AppConfig['LOG_LEVEL']): LogLevel[] | false {
  const order: LogLevel[] = ['fatal', 'error', 'warn', 'log', 'debug', 'verbose'];
  const cut = { fatal: 1, error: 2, warn: 3, info: 4, debug: 5, trace: 6, silent: 0 }[level];
  return cut === 0 ? false : order.slice(0, cut);
}

export async function configureHttpApp(app: NestFastifyApplication, config: AppConfig): Promise<void> {
  const fastify = app.getHttpAdapter().getInstance();
  await app.register(fastifyCookie as never, { secret: sessionSecret(config) } as never);
  await app.register(fastifyHelmet as never, SECURITY_HEADERS as never);
  fastify.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('X-Oneapi-Request-Id', request.id);
  });

  const consoleDir = resolve(config.CONSOLE_DIST);
  if (existsSync(resolve(consoleDir, 'index.html'))) {
    await app.register(fastifyStatic as never, { root: consoleDir, prefix: '/', wildcard: false, index: false } as never);
  }
  app.useGlobalFilters(new ConsoleExceptionFilter(existsSync(resolve(consoleDir, 'index.html'))));
  // No enableShutdownHooks: main.ts closes the app once on SIGTERM/SIGINT (every shutdown hook runs, the charge
  // journal drains) and then stops the services it started; Nest's hooks would close it a second time and re-raise
  // the signal, killing the process before that.
}

/** SESSION_SECRET, else the one generated once into DATA_DIR (a restart keeps everyone signed in). */
function sessionSecret(config: AppConfig): string {
  if (config.SESSION_SECRET) return config.SESSION_SECRET;
  const { secret, file, created } = resolveSessionSecret(config.DATA_DIR);
  new Logger('Tollgate').log(`session secret: ${created ? 'generated into' : 'read from'} ${file} (SESSION_SECRET is unset)`);
  return secret;
}

export type { INestApplication };
