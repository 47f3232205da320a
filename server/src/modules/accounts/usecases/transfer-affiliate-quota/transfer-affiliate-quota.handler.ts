import { randomUUID } from 'node:crypto';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { ConflictError } from '#server/common/http/errors';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { WrongExpectedRevisionError } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { OptionsService } from '#server/modules/options/options.service';
import { decide, initialAccountState } from '../../account.decider';
import { evolveStored, toNewAccountEvent } from '../../account-event-codec';
import { quotaDisplayFromOptions } from '../../quota-display';
import { ReadYourWrites } from '../../read-your-writes';
import { TransferAffiliateQuotaCommand } from './transfer-affiliate-quota.command';

/**
 * An account stream is hot (relay charges land on it), so a lost race is retried: reload, decide again against
 * the fresh balance, append again. Each round lets at least one writer through, so this bounds how many
 * simultaneous writers one account can have before a caller sees the conflict instead.
 */
export const TRANSFER_RETRIES = 50;

@CommandHandler(TransferAffiliateQuotaCommand)
export class TransferAffiliateQuotaHandler implements ICommandHandler<TransferAffiliateQuotaCommand> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly options: OptionsService,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ input }: TransferAffiliateQuotaCommand): Promise<{ position: number }> {
    const display = quotaDisplayFromOptions(this.options);
    const minimum = this.options.getNumber('QuotaPerUnit');
    const result = await this.aggregates
      .loadAndAppend(
        accountStream(input.userId),
        evolveStored,
        initialAccountState,
        (state) =>
          decide({ type: 'TransferAffiliateQuota', amount: input.amount, minimum, display }, state).map((event) =>
            // A random id: the expected revision, not the id, is what keeps two transfers from spending one balance.
            toNewAccountEvent(event, {
              id: randomUUID(),
              metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'aff_transfer' },
              annotation: { username: input.username, quotaDisplay: display },
            }),
          ),
        { retries: TRANSFER_RETRIES },
      )
      .catch((error: unknown) => {
        if (error instanceof WrongExpectedRevisionError) throw new ConflictError('划转失败 账户繁忙，请稍后重试');
        throw error;
      });
    await this.readYourWrites.wait(result.position);
    return { position: result.position };
  }
}
