import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface PurgeLogsInput {
  /** Unix seconds: rows with `created_at` before it are deleted. */
  targetTimestamp: number;
  adminId: number;
  actor: Actor;
  /** The HTTP request id: the event id derives from it, so a retried request purges once. */
  correlationId: string;
  clientIp: string | null;
}

/** DELETE /api/log/?target_timestamp (admin): deletes rows created before it, answers how many. */
export class PurgeLogsCommand extends Command<number> {
  constructor(readonly input: PurgeLogsInput) {
    super();
  }
}
