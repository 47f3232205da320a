import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InvalidParamsError } from '#server/common/http/errors';
import { EVENT_STORE, type EventStore, WrongExpectedRevisionError } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { OptionsService } from '#server/modules/options/options.service';
import { decide, initialAccountState } from '../../account.decider';
import { AccountChangedError } from '../../account.errors';
import { evolveStored, toNewAccountEvent } from '../../account-event-codec';
import { formatLogQuota, quotaDisplayFromOptions } from '../../quota-display';
import { AdjustQuotaByAdminCommand, type AdjustQuotaByAdminResult } from './adjust-quota-by-admin.command';

@CommandHandler(AdjustQuotaByAdminCommand)
export class AdjustQuotaByAdminHandler implements ICommandHandler<AdjustQuotaByAdminCommand> {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly options: OptionsService,
  ) {}

  async execute({ input }: AdjustQuotaByAdminCommand): Promise<AdjustQuotaByAdminResult> {
    const stream = accountStream(input.userId);
    const display = quotaDisplayFromOptions(this.options);
    const history = await this.store.readStream(stream);
    const currentRevision = history.length ? history[history.length - 1].revision : -1;
    const basisRevision = input.basisRevision ?? currentRevision;
    // The form cannot have been filled from a revision the account never had.
    if (!Number.isSafeInteger(basisRevision) || basisRevision < -1 || basisRevision > currentRevision) throw new InvalidParamsError();

    // evolveStored: account streams also hold the relay's QuotaConsumed charges.
    const current = history.reduce(evolveStored, initialAccountState);
    const basis = history.filter((event) => event.revision <= basisRevision).reduce(evolveStored, initialAccountState);
    if (input.quota === basis.quota) return { changed: false, position: 0 };
    if (basisRevision !== currentRevision) throw new AccountChangedError(current.quota, formatLogQuota(current.quota, display));

    const events = decide({ type: 'AdjustQuotaByAdmin', after: input.quota, adminId: input.adminId }, current).map((event) =>
      toNewAccountEvent(event, {
        // Random: the expected revision below is what makes a repeated or raced edit safe.
        id: randomUUID(),
        metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'admin_edit' },
        annotation: { username: input.username, quotaDisplay: display },
      }),
    );
    if (events.length === 0) return { changed: false, position: 0 };
    try {
      const result = await this.store.appendToStream(stream, events, {
        expectedRevision: currentRevision < 0 ? 'no_stream' : currentRevision,
      });
      return { changed: true, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      const fresh = (await this.store.readStream(stream)).reduce(evolveStored, initialAccountState);
      throw new AccountChangedError(fresh.quota, formatLogQuota(fresh.quota, display));
    }
  }
}
