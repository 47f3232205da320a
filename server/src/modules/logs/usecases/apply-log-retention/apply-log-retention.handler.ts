import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { newEvent, systemActor } from '#server/ledger/event-envelope';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { ProjectionTimeoutError } from '#projections/runner/projection';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { OptionsService } from '#server/modules/options/index';
import { LOGS_STREAM, type LogsRetentionApplied } from '../../logs.events';
import { ApplyLogRetentionCommand, type LogRetentionOutcome } from './apply-log-retention.command';

const DAY = 86_400;

/** The cut-off of a retention of `days` days at `now`: the start of the UTC day `days` days before today. */
export function retentionCutoff(now: number, days: number): number {
  return Math.floor(now / DAY) * DAY - days * DAY;
}

/**
 * Appends LogsRetentionApplied when LogRetentionDays > 0 and rows older than the cut-off exist (or the read models
 * are behind, so rows may still be on their way). The event id derives from the cut-off, so the daily run and any
 * run after an option change on the same day append it once. The logs projection drops the months wholly before
 * the cut-off and deletes the boundary month's older rows; the answer is the count it recorded.
 */
@CommandHandler(ApplyLogRetentionCommand)
export class ApplyLogRetentionHandler implements ICommandHandler<ApplyLogRetentionCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly dataSource: DataSource,
    private readonly options: OptionsService,
    private readonly readYourWrites: ReadYourWrites,
    private readonly waiter: ProjectionWaiter,
  ) {}

  async execute({ now }: ApplyLogRetentionCommand): Promise<LogRetentionOutcome> {
    const raw = this.options.getNumber('LogRetentionDays');
    const retentionDays = Number.isSafeInteger(raw) && raw > 0 ? raw : 0;
    if (retentionDays === 0) return { retentionDays, before: null, appended: false, deleted: 0 };
    const before = retentionCutoff(now, retentionDays);
    if (!Number.isSafeInteger(before) || before <= 0) return { retentionDays, before: null, appended: false, deleted: 0 };
    const caughtUp = await this.readModelsCaughtUp();
    const older: Array<{ found: boolean }> = await this.dataSource.query(
      'SELECT EXISTS (SELECT 1 FROM logs WHERE created_at < $1::bigint) AS found',
      [before],
    );
    if (caughtUp && !older[0]?.found) return { retentionDays, before, appended: false, deleted: 0 };
    const id = deterministicEventId('logs-retention', String(before));
    const data: LogsRetentionApplied['data'] = { before, retentionDays };
    const result = await this.store.appendToStream(
      LOGS_STREAM,
      [
        newEvent('LogsRetentionApplied', data, {
          id,
          metadata: { correlationId: `log-retention-${before}`, actor: systemActor(), clientIp: null, reasonCode: 'log_retention' },
        }),
      ],
      { expectedRevision: 'any' },
    );
    await this.readYourWrites.wait(result.position);
    const recorded: Array<{ deleted: string }> = await this.dataSource.query('SELECT deleted FROM log_purges WHERE event_id = $1', [id]);
    return { retentionDays, before, appended: true, deleted: recorded[0] ? Number(recorded[0].deleted) : 0 };
  }

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
