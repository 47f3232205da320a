import { randomUUID } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { WrongExpectedRevisionError } from '#server/ledger/event-store.port';
import { redemptionStream } from '#server/ledger/streams';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { decide, initialRedemptionState, type RedemptionCommand, type RedemptionState } from '../../redemption.decider';
import { RedemptionChangedError, RedemptionNotFoundError } from '../../redemption.errors';
import { evolveStored, toNewRedemptionEvent } from '../../redemption-event-codec';
import { RedemptionReader } from '../../redemption.reader';
import { type RedemptionJson, toRedemptionJson } from '../../redemption.serializer';
import { ChangeRedemptionCodeCommand, type RedemptionChange } from './change-redemption-code.command';

function commandOf(change: RedemptionChange, state: RedemptionState): RedemptionCommand {
  switch (change.type) {
    case 'edit':
      return { type: 'EditRedemptionCode', name: change.name ?? state.name, quota: change.quota ?? state.quota };
    case 'status':
      return { type: 'ChangeRedemptionCodeStatus', status: change.status };
    case 'delete':
      return { type: 'DeleteRedemptionCode' };
  }
}

@CommandHandler(ChangeRedemptionCodeCommand)
export class ChangeRedemptionCodeHandler implements ICommandHandler<ChangeRedemptionCodeCommand> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly reader: RedemptionReader,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ input }: ChangeRedemptionCodeCommand): Promise<RedemptionJson | null> {
    const reasonCode = `redemption_${input.change.type}`;
    const result = await this.aggregates
      .loadAndAppend(
        redemptionStream(input.id),
        evolveStored,
        initialRedemptionState,
        (state) =>
          decide(commandOf(input.change, state), state).map((event) =>
            // Random: the expected revision is what keeps a change from applying over one it did not see.
            toNewRedemptionEvent(event, {
              id: randomUUID(),
              metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode },
            }),
          ),
        { retries: 0 },
      )
      .catch((error: unknown) => {
        if (error instanceof WrongExpectedRevisionError) throw new RedemptionChangedError();
        throw error;
      });
    if (result.events.length) await this.readYourWrites.wait(result.position);
    if (input.change.type === 'delete') return null;
    const row = await this.reader.find(input.id);
    if (!row) throw new RedemptionNotFoundError();
    return toRedemptionJson(row);
  }
}
