import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { loadRuntimeConfig } from './bootstrap-config';
import { parseConfig, parseRoles } from './config/app-config';
import { startIdleHeapCollector } from './config/idle-heap-collector';
import { lowerProcessPriority } from './config/process-priority';
import { createHttpApp, nestLogLevels } from './http-app';

/**
 * `node dist/server/src/main.js [--role api|worker|projector|all]` (default all): one code base, three roles.
 */
async function main(): Promise<void> {
  const logger = new Logger('Tollgate');
  // The one read of the environment: everything below gets its configuration from here.
  const env = parseConfig(process.env);
  const roles = parseRoles(process.argv, env.ROLE);
  const { config, stop } = await loadRuntimeConfig(env, roles, (line) => logger.log(line));
  logger.log(`roles: ${roles.join(', ')}`);

  let app: { close(): Promise<void> };
  if (roles.includes('api')) {
    const http = await createHttpApp(config);
    await http.listen(config.PORT, config.HOST);
    logger.log(`listening on http://${config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST}:${config.PORT} (console at /, API at /api)`);
    app = http;
  } else {
    try {
      const priority = lowerProcessPriority(config.BACKGROUND_NICE);
      if (priority !== null) logger.log(`background role: scheduling priority lowered to nice ${priority} (BACKGROUND_NICE)`);
    } catch (error) {
      logger.warn(`could not lower the scheduling priority: ${(error as Error).message}`);
    }
    const context = await NestFactory.createApplicationContext(AppModule.forRoot(config), { logger: nestLogLevels(config.LOG_LEVEL) });
    context.enableShutdownHooks();
    await context.init();
    app = context;
  }
  // Memory a burst left behind goes back once the process is quiet (IDLE_GC; config/idle-heap-collector.ts).
  const collector = startIdleHeapCollector(config, (line) => logger.log(line));
  const shutdown = async () => {
    collector?.stop();
    await app.close();
    await stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
