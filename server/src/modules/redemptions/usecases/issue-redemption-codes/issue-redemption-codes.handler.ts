import { randomBytes } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { redemptionStream } from '#server/ledger/streams';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { decide, initialRedemptionState } from '../../redemption.decider';
import { toNewRedemptionEvent } from '../../redemption-event-codec';
import { IssueRedemptionCodesCommand, type IssueRedemptionCodesResult } from './issue-redemption-codes.command';

/** 32 lowercase hex characters from the system's cryptographic source (new-api: a UUID v4 without dashes). */
export function generateRedemptionKey(): string {
  return randomBytes(16).toString('hex');
}

@CommandHandler(IssueRedemptionCodesCommand)
export class IssueRedemptionCodesHandler implements ICommandHandler<IssueRedemptionCodesCommand> {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ input }: IssueRedemptionCodesCommand): Promise<IssueRedemptionCodesResult> {
    const { fields } = input;
    // Ids from a sequence: unique across api processes, never handed out twice even if an append fails.
    const ids: Array<{ id: number }> = await this.dataSource.query(
      "SELECT nextval('redemption_ids')::integer AS id FROM generate_series(1, $1::integer)",
      [fields.count],
    );
    const createdTime = Math.floor(Date.now() / 1000);
    const requests = ids.map(({ id }) => {
      const key = generateRedemptionKey();
      const events = decide(
        { type: 'IssueRedemptionCode', id, key, name: fields.name, quota: fields.quota, creatorId: input.creatorId, createdTime },
        initialRedemptionState,
      ).map((event) =>
        toNewRedemptionEvent(event, {
          id: deterministicEventId('redemption-issued', String(id)),
          metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'redemption_issued' },
        }),
      );
      return { key, request: { streamId: redemptionStream(id), events, expectedRevision: 'no_stream' as const } };
    });
    // One transaction for the batch; each code is its own append, so one refused append leaves the others.
    const outcomes = await this.store.appendMany(requests.map((entry) => entry.request));
    const keys: string[] = [];
    let error: string | null = null;
    let position = 0;
    for (const [index, outcome] of outcomes.entries()) {
      if (!outcome.ok) {
        error ??= outcome.error.message;
        continue;
      }
      keys.push(requests[index].key);
      position = Math.max(position, outcome.result.position);
    }
    if (position > 0) await this.readYourWrites.wait(position);
    return { keys, error };
  }
}
