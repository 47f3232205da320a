import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { newEvent } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { ProjectionTimeoutError } from '#projections/runner/projection';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { decide } from '../../logs.decider';
import { LOGS_STREAM } from '../../logs.events';
import { PurgeLogsCommand } from './purge-logs.command';

/**
 * Log rows are a read model, so deleting them is an event (LogsPurged on `logs`) that the logs projection applies
 * as a delete, live and on every rebuild. The answer is the count the projection recorded for that event; if the
 * projector has not caught up in time, the count of matching rows just before the append.
 */
@CommandHandler(PurgeLogsCommand)
export class PurgeLogsHandler implements ICommandHandler<PurgeLogsCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly dataSource: DataSource,
    private readonly readYourWrites: ReadYourWrites,
    private readonly waiter: ProjectionWaiter,
  ) {}

  async execute({ input }: PurgeLogsCommand): Promise<number> {
    const decided = decide({ type: 'PurgeLogs', targetTimestamp: input.targetTimestamp, adminId: input.adminId });
    if (decided.length === 0) return 0;
    const id = deterministicEventId('logs-purge', input.correlationId);
    const caughtUp = await this.readModelsCaughtUp();
    const before: Array<{ count: string }> = await this.dataSource.query(
      'SELECT count(*) AS count FROM logs WHERE created_at < $1::bigint',
      [input.targetTimestamp],
    );
    // Nothing that old, and no event still on its way to the table: the purge would delete nothing, so it
    // records nothing (the answer is the same 0). Behind projections, the event is appended anyway so that rows
    // still being projected are purged in ledger order.
    if (caughtUp && Number(before[0]?.count ?? 0) === 0) return 0;
    const events = decided.map((event) =>
      newEvent(event.type, event.data, {
        id,
        metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'admin_logs_purge' },
      }),
    );
    const result = await this.store.appendToStream(LOGS_STREAM, events, { expectedRevision: 'any' });
    await this.readYourWrites.wait(result.position);
    const recorded: Array<{ deleted: string }> = await this.dataSource.query('SELECT deleted FROM log_purges WHERE event_id = $1', [id]);
    return recorded[0] ? Number(recorded[0].deleted) : Number(before[0]?.count ?? 0);
  }

  /** Whether the read models have applied every event appended so far (within the read-your-writes timeout). */
  private async readModelsCaughtUp(): Promise<boolean> {
    try {
      await this.waiter.waitFor(await this.store.headPosition());
      return true;
    } catch (error) {
      if (error instanceof ProjectionTimeoutError) return false;
      throw error;
    }
  }
}
