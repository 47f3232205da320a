import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { loadRuntimeConfig } from './bootstrap-config';
import { parseConfig, parseStart } from './config/app-config';
import { startIdleHeapCollector } from './config/idle-heap-collector';
import { lowerProcessPriority } from './config/process-priority';
import { createHttpApp, nestLogLevels } from './http-app';
import { runSupervisor } from './supervisor/run-supervisor';

/**
 * `node dist/server/src/main.js [--role supervisor|api|worker|projector|all]`: one code base, three roles. Without
 * --role (and ROLE unset) the process is the supervisor of one child per role (supervisor/run-supervisor.ts);
 * `--role all` runs every role in this one process.
 */
async function main(): Promise<void> {
  const logger = new Logger('Tollgate');
  // The one read of the environment: everything below gets its configuration from here.
  const env = parseConfig(process.env);
  const start = parseStart(process.argv, env.ROLE);
  if (start === 'supervisor') {
    const entry = process.argv[1];
    await runSupervisor({ env, rawEnv: process.env, entry, execArgv: process.execArgv, log: (line) => logger.log(line) });
    return;
  }
  const roles = start;
  // A supervisor's child: the supervisor ran the migrations (and owns the services it started).
  const migrate = !process.argv.includes('--no-migrate');
  const { config, stop } = await loadRuntimeConfig(env, roles, (line) => logger.log(line), { migrate });
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
    // No enableShutdownHooks: the SIGTERM/SIGINT handler below closes the context (running every shutdown hook)
    // once; Nest's own hooks would close it a second time and re-raise the signal.
    await context.init();
    app = context;
  }
  // Memory a burst left behind goes back once the process is quiet (IDLE_GC; config/idle-heap-collector.ts).
  const collector = startIdleHeapCollector(config, (line) => logger.log(line));
  let closing: Promise<void> | null = null;
  const shutdown = () =>
    (closing ??= (async () => {
      collector?.stop();
      await app.close();
      await stop();
      process.exit(0);
    })());
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
  logger.log('started: SIGTERM or SIGINT stops it');
  // A supervisor's child: when the supervisor is gone (its IPC channel closed), stop too rather than run orphaned.
  if (process.send) {
    process.channel?.unref();
    // Its stdout and stderr are pipes to the supervisor: once it is gone, writes fail (EPIPE) and are dropped.
    process.stdout.on('error', () => undefined);
    process.stderr.on('error', () => undefined);
    const gone = () => {
      logger.warn('the supervisor is gone: stopping');
      void shutdown();
    };
    // It may have gone while this process was starting (the channel closed before this listener existed).
    if (!process.connected) gone();
    else process.once('disconnect', gone);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
