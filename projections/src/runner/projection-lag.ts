import type { DataSource } from 'typeorm';
import type { EventStore } from '#server/ledger/event-store.port';
import { holderPidQuery } from './leadership-lock';
import { PROJECTOR_LEADER_LOCK } from './projection';
import type { ProjectionRegistry } from './projection-registry';

export interface ProjectionLag {
  name: string;
  checkpoint: number;
  /** Head position minus checkpoint (with the Postgres store: events not yet applied). */
  behind: number;
  /** Age of the oldest event not yet applied; 0 when caught up. */
  secondsBehind: number;
  updatedAt: Date | null;
  lastError: string | null;
  lastErrorAt: Date | null;
}

export interface ProjectionLagReport {
  head: number;
  /** Postgres backend pid of the active projector's lock session; null when no projector runs anywhere. */
  leaderPid: number | null;
  projections: ProjectionLag[];
}

/** How far the read models trail the ledger; readable from any process (admin API, metrics). */
export class ProjectionLagService {
  constructor(
    private readonly registry: ProjectionRegistry,
    private readonly store: EventStore,
    private readonly dataSource: DataSource,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async lag(): Promise<ProjectionLagReport> {
    const names = this.registry.names();
    const [head, rows, leaderPid] = await Promise.all([
      this.store.headPosition(),
      this.dataSource.query(
        `SELECT name, position, updated_at, last_error, last_error_at FROM projection_checkpoints WHERE name = ANY($1)`,
        [names],
      ) as Promise<Array<{ name: string; position: string; updated_at: Date; last_error: string | null; last_error_at: Date | null }>>,
      this.leaderPid(),
    ]);
    const byName = new Map(rows.map((row) => [row.name, row]));
    const ages = new Map<number, number>();
    const projections: ProjectionLag[] = [];
    for (const name of names) {
      const row = byName.get(name);
      const checkpoint = row ? Number(row.position) : 0;
      if (checkpoint < head && !ages.has(checkpoint)) ages.set(checkpoint, await this.ageAfter(checkpoint));
      projections.push({
        name,
        checkpoint,
        behind: Math.max(0, head - checkpoint),
        secondsBehind: checkpoint < head ? (ages.get(checkpoint) ?? 0) : 0,
        updatedAt: row?.updated_at ?? null,
        lastError: row?.last_error ?? null,
        lastErrorAt: row?.last_error_at ?? null,
      });
    }
    return { head, leaderPid, projections };
  }

  private async ageAfter(checkpoint: number): Promise<number> {
    const [next] = await this.store.readAll({ after: checkpoint, maxCount: 1 });
    return next ? Math.max(0, (this.clock().getTime() - next.createdAt.getTime()) / 1000) : 0;
  }

  private async leaderPid(): Promise<number | null> {
    const [sql, parameters] = holderPidQuery(PROJECTOR_LEADER_LOCK);
    const rows: Array<{ pid: number }> = await this.dataSource.query(sql, parameters);
    return rows[0]?.pid ?? null;
  }
}
