import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { EventStore, RecordedEvent, Subscription } from '#server/ledger/event-store.port';
import { CheckpointStore, type Checkpoints } from './checkpoint-store';
import { EventBatcher } from './event-batcher';
import { LeadershipLock } from './leadership-lock';
import {
  DEFAULT_RUNNER_OPTIONS,
  LeadershipUnavailableError,
  type Projection,
  ProjectionApplyError,
  PROJECTOR_LEADER_LOCK,
  type ProjectionRunnerOptions,
} from './projection';
import { type RebuildHooks, rebuildProjections, type RebuildReport } from './projection-rebuild';
import { restoreDeferredIndexes } from './deferred-indexes';
import type { ProjectionRegistry } from './projection-registry';

export interface ProjectionRunnerDependencies {
  registry: ProjectionRegistry;
  store: EventStore;
  dataSource: DataSource;
  /** For the leadership lock's own connection (a pooled one would hand the session-level lock around). */
  databaseUrl: string;
  options?: Partial<ProjectionRunnerOptions>;
  /** Told after each commit, so read-your-writes waits in this process end without polling. */
  onCheckpoint?: (reachedByAll: number) => void;
}

export interface RebuildOptions {
  /** Only these projections (default: all). */
  projections?: string[];
  /** How long to wait for the leadership if another process holds it. */
  waitMs?: number;
  /** `snapshot` (default): from the latest ledger snapshot when there is one; `archive`: the whole ledger from 0. */
  from?: 'snapshot' | 'archive';
  /** Told after every batch the replay commits (the CLI's progress bar). */
  onProgress?: RebuildHooks['onProgress'];
}

interface RebuildRequest {
  options: RebuildOptions;
  resolve: (report: RebuildReport) => void;
  reject: (error: unknown) => void;
}

/**
 * The projector: one active leader per installation (advisory lock), catching up from the checkpoints and then
 * following the ledger live, a batch per transaction. Every process has a runner (for rebuild); only the
 * projector role starts it.
 */
export class ProjectionRunner {
  private readonly logger = new Logger('ProjectionRunner');
  private readonly options: ProjectionRunnerOptions;
  private readonly lock: LeadershipLock;
  private readonly checkpoints: CheckpointStore;
  private loop: Promise<void> | null = null;
  private stopping = false;
  private endSession: ((error?: unknown) => void) | null = null;
  private wakeLoop: (() => void) | null = null;
  private readonly rebuildRequests: RebuildRequest[] = [];
  private standaloneRebuild: Promise<unknown> = Promise.resolve();
  private lastError: string | null = null;
  /** Failures since the last commit: the retry pause doubles with each, so a poison event does not spin. */
  private consecutiveFailures = 0;

  constructor(private readonly deps: ProjectionRunnerDependencies) {
    this.options = { ...DEFAULT_RUNNER_OPTIONS, ...deps.options };
    this.lock = new LeadershipLock(deps.databaseUrl, PROJECTOR_LEADER_LOCK, this.options.heartbeatMs);
    this.lock.onLost = () => {
      this.logger.warn('lost the projector leadership (lock connection gone); stopping until it is regained');
      this.endSession?.(new Error('projector leadership lost'));
    };
    this.checkpoints = new CheckpointStore(deps.dataSource);
  }

  get isLeader(): boolean {
    return this.lock.isHeld;
  }

  status(): { running: boolean; leader: boolean; lastError: string | null } {
    return { running: this.loop !== null, leader: this.lock.isHeld, lastError: this.lastError };
  }

  start(): void {
    if (this.loop) return;
    this.stopping = false;
    this.loop = this.run().finally(() => {
      this.loop = null;
    });
  }

  /** Commits what is buffered, releases the leadership and returns when nothing runs any more. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.endSession?.();
    this.wakeLoop?.();
    await this.loop;
    for (const request of this.rebuildRequests.splice(0)) request.reject(new Error('projection runner stopped'));
  }

  /**
   * Truncates the projections' tables and replays the ledger, holding the leadership: a running leader pauses its
   * live session for it; otherwise this waits up to `waitMs` for the lock (a projector elsewhere must stop first).
   */
  rebuild(options: RebuildOptions = {}): Promise<RebuildReport> {
    if (this.loop) return this.requestRebuild(options);
    const run = this.standaloneRebuild.then(async () => {
      if (!(await this.lock.acquireWithin(options.waitMs ?? 15_000, Math.min(this.options.leadershipPollMs, 500)))) {
        throw await this.unavailable();
      }
      try {
        return await this.rebuildNow(options);
      } finally {
        await this.lock.release();
      }
    });
    this.standaloneRebuild = run.catch(() => undefined);
    return run;
  }

  private requestRebuild(options: RebuildOptions): Promise<RebuildReport> {
    return new Promise<RebuildReport>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.rebuildRequests.indexOf(request);
        if (index < 0) return; // already started
        this.rebuildRequests.splice(index, 1);
        this.unavailable().then(reject, reject);
      }, options.waitMs ?? 15_000);
      const request: RebuildRequest = {
        options,
        resolve: (report) => (clearTimeout(timer), resolve(report)),
        reject: (error) => (clearTimeout(timer), reject(error)),
      };
      this.rebuildRequests.push(request);
      this.endSession?.();
      this.wakeLoop?.();
    });
  }

  private async unavailable(): Promise<LeadershipUnavailableError> {
    const pid = await this.lock.holderPid().catch(() => null);
    return new LeadershipUnavailableError(
      `Another projector holds the leadership${pid ? ` (Postgres backend pid ${pid})` : ''}; stop it and retry`,
    );
  }

  private rebuildNow(options: RebuildOptions): Promise<RebuildReport> {
    const store = this.deps.store;
    return rebuildProjections(
      {
        dataSource: this.deps.dataSource,
        store: this.deps.store,
        checkpoints: this.checkpoints,
        projections: this.deps.registry.all(),
        batchSize: this.options.rebuildBatchSize,
        lanes: this.options.rebuildLanes,
        from: options.from,
        // The store's replay reader when it has one (Postgres: COPY in binary), else readAll.
        readPage: store.readAllInBulk ? (after, maxCount) => store.readAllInBulk!({ after, maxCount }) : undefined,
      },
      options.projections,
      { onProgress: options.onProgress },
    );
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        if (!this.lock.isHeld) {
          if (!(await this.lock.tryAcquire())) {
            await this.pause(this.options.leadershipPollMs);
            continue;
          }
          this.logger.log(`leader: applying ${this.deps.registry.names().join(', ') || 'no projections'}`);
        }
        for (let request = this.rebuildRequests.shift(); request; request = this.rebuildRequests.shift()) {
          await this.rebuildNow(request.options).then(request.resolve, request.reject);
        }
        if (!this.stopping) await this.runLive();
      } catch (error) {
        if (this.stopping) break;
        this.consecutiveFailures++;
        const delay = Math.min(this.options.retryDelayMs * 2 ** (this.consecutiveFailures - 1), 30_000);
        await this.recordFailure(error, delay);
        await this.pause(delay);
      }
    }
    await this.lock.release();
  }

  /** One live session: from the lowest checkpoint, until stopped, asked to rebuild, or failing. */
  private async runLive(): Promise<void> {
    const projections = this.deps.registry.all();
    // Indexes a rebuild that died (in this process or another) had dropped: back before the live session writes.
    const restored = await restoreDeferredIndexes(this.deps.dataSource);
    if (restored.length) this.logger.warn(`created again the index(es) an unfinished rebuild had dropped: ${restored.join(', ')}`);
    const checkpoints = await this.checkpoints.ensure(projections.map((projection) => projection.name));
    const from = projections.length ? Math.min(...checkpoints.values()) : 0;
    await new Promise<void>((resolve, reject) => {
      let finished = false;
      let subscription: Subscription | null = null;
      const batcher = new EventBatcher(
        (events) => this.commit(projections, checkpoints, events),
        { maxSize: this.options.batchSize, lingerMs: this.options.lingerMs },
        (error) => finish(error),
      );
      const finish = (error?: unknown) => {
        if (finished) return;
        finished = true;
        this.endSession = null;
        void (async () => {
          await subscription?.close().catch(() => undefined);
          // A clean stop commits what was already read; after a failure the batch is dropped and re-read later.
          if (error === undefined) await batcher.flush().catch((flushError: unknown) => (error = flushError));
          else batcher.discard();
          if (error === undefined) resolve();
          else reject(error);
        })();
      };
      this.endSession = finish;
      // stop() or rebuild() may have come while the checkpoints were loading, before there was a session to end.
      if (this.stopping || this.rebuildRequests.length) return finish();
      if (projections.length) {
        subscription = this.deps.store.subscribeToAll(
          { after: from },
          (event) => batcher.push(event),
          (error) => finish(error),
        );
      }
    });
  }

  private async commit(projections: readonly Projection[], checkpoints: Checkpoints, events: RecordedEvent[]): Promise<void> {
    const result = await this.checkpoints.applyBatch(projections, checkpoints, events);
    for (const projection of projections) {
      if (!projection.afterCommit || !result.applied.get(projection.name)) continue;
      await projection
        .afterCommit(events, result.position)
        .catch((error: unknown) =>
          this.logger.error(`${projection.name}: after-commit hook failed: ${error instanceof Error ? error.message : String(error)}`),
        );
    }
    this.lastError = null;
    this.consecutiveFailures = 0;
    this.deps.onCheckpoint?.(Math.min(...checkpoints.values()));
  }

  private async recordFailure(error: unknown, retryInMs: number): Promise<void> {
    const message = error instanceof Error ? error.message : String(error);
    this.lastError = message;
    this.logger.error(`projections stopped: ${message}; retrying in ${retryInMs} ms`);
    const names = error instanceof ProjectionApplyError ? [error.projection] : this.deps.registry.names();
    await this.checkpoints.recordError(names, message).catch(() => undefined);
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        if (this.wakeLoop === done) this.wakeLoop = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeLoop = done;
    });
  }
}
