import { loadRuntimeConfig } from '../bootstrap-config';
import type { EnvConfig, RuntimeRole } from '../config/app-config';
import { Supervisor } from './supervisor';

/** The children of `npm start`: one process per role, so the api role's event loop does only HTTP and the relay. */
export const SUPERVISED_ROLES: readonly RuntimeRole[] = ['api', 'worker', 'projector'];

/**
 * The supervisor (`main.js` without --role, or `--role supervisor`): finds or starts Postgres and Redis once and
 * owns what it started, runs the migrations once, then runs one child per role (`main.js --role <role>
 * --no-migrate` with the resolved DATABASE_URL and REDIS_URL), all printing to this process's stdout/stderr with a
 * `[role]` prefix. A child that dies is restarted with backoff. SIGTERM or SIGINT stops the children (each drains:
 * the api ships its charge journal), then the services it started, within SHUTDOWN_TIMEOUT_MS, after which what
 * is left is SIGKILLed.
 */
export async function runSupervisor(options: {
  env: EnvConfig;
  rawEnv: Record<string, string | undefined>;
  /** The entry script every child runs, and node's flags (process.execArgv: a --require of the tests' loader). */
  entry: string;
  execArgv: string[];
  log: (line: string) => void;
}): Promise<void> {
  const { env, log } = options;
  let signalled = false;
  let stopping: Promise<void> | null = null;
  // A signal while Postgres or Redis is still being started: stop once they are up (they are ours to stop).
  const early = () => (signalled = true);
  process.once('SIGTERM', early);
  process.once('SIGINT', early);

  const services = await loadRuntimeConfig(env, [...SUPERVISED_ROLES], log);
  process.off('SIGTERM', early);
  process.off('SIGINT', early);
  const childEnv = { ...options.rawEnv, DATABASE_URL: services.config.DATABASE_URL, REDIS_URL: services.config.REDIS_URL };
  const supervisor = new Supervisor({
    command: process.execPath,
    execArgv: options.execArgv,
    children: SUPERVISED_ROLES.map((role) => ({ name: role, args: [options.entry, '--role', role, '--no-migrate'], env: childEnv })),
    log: (line) => log(`supervisor: ${line}`),
    onGiveUp: () => void shutdown(1),
  });

  const shutdown = (code = 0): Promise<void> => {
    stopping ??= (async () => {
      const started = Date.now();
      log(`supervisor: stopping ${SUPERVISED_ROLES.join(', ')}`);
      const inTime = await supervisor.stop(env.SHUTDOWN_TIMEOUT_MS);
      await services.stop();
      log(`supervisor: stopped in ${Date.now() - started} ms`);
      process.exit(inTime ? code : 1);
    })();
    return stopping;
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  if (signalled) {
    await shutdown();
    return;
  }
  log(`supervisor: roles ${SUPERVISED_ROLES.join(', ')} as child processes (ROLE=all runs them in one process)`);
  supervisor.start();
}
