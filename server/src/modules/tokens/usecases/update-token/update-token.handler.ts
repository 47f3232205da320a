import { randomUUID } from 'node:crypto';
import { Inject } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { WrongExpectedRevisionError } from '#server/ledger/event-store.port';
import { tokenStream } from '#server/ledger/streams';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { decide, initialTokenQuotaState } from '../../token.decider';
import { TokenEntity } from '../../token.entity';
import { NegativeTokenQuotaError, TokenGroupNotUsableError, TokenNotFoundError, TokenQuotaChangedError } from '../../token.errors';
import { evolveStored, toNewTokenEvent } from '../../token-event-codec';
import { TokenGroupPolicy } from '../../token-groups';
import type { TokenFields } from '../../token-input';
import { TokenReader } from '../../token.reader';
import { type TokenJson, type TokenView, toTokenJson } from '../../token.serializer';
import { assertCanEnable, TokenStatus, unixSeconds } from '../../token-status';
import { TokenAuthCache } from '../../token-auth/token-auth-cache';
import { QUOTA_ADMISSION, type QuotaAdmission } from '#server/modules/accounts/index';
import { UpdateTokenCommand, type UpdateTokenInput } from './update-token.command';

type ConfigFields = Omit<TokenFields, 'remainQuota'>;
const CONFIG_FIELDS: ReadonlyArray<keyof ConfigFields> = [
  'name',
  'expiredTime',
  'unlimitedQuota',
  'modelLimitsEnabled',
  'modelLimits',
  'allowIps',
  'group',
];

@CommandHandler(UpdateTokenCommand)
export class UpdateTokenHandler implements ICommandHandler<UpdateTokenCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly reader: TokenReader,
    private readonly aggregates: AggregateRepository,
    private readonly groups: TokenGroupPolicy,
    private readonly readYourWrites: ReadYourWrites,
    private readonly cache: TokenAuthCache,
    @Inject(QUOTA_ADMISSION) private readonly admission: QuotaAdmission,
  ) {}

  async execute({ input }: UpdateTokenCommand): Promise<TokenJson> {
    const { edit, userId } = input;
    const token = await this.reader.findOwned(userId, edit.id);
    if (!token) throw new TokenNotFoundError();
    if (edit.status === TokenStatus.Enabled) assertCanEnable(token, unixSeconds());
    const { fields } = edit;
    const remainQuota = fields.remainQuota ?? token.remainQuota;
    const unlimited = fields.unlimitedQuota ?? token.unlimitedQuota;
    if (remainQuota < 0 && remainQuota !== token.remainQuota) throw new NegativeTokenQuotaError();
    if (fields.group && fields.group !== token.group) {
      const verdict = this.groups.judge(fields.group);
      if (!verdict.usable) throw new TokenGroupNotUsableError(verdict.message);
    }

    const position = await this.allot(input, token, remainQuota, unlimited);
    const changes: Partial<ConfigFields> = {};
    for (const field of CONFIG_FIELDS) {
      if (fields[field] !== undefined) Object.assign(changes, { [field]: fields[field] });
    }
    if (Object.keys(changes).length) await this.dataSource.getRepository(TokenEntity).update({ id: token.id, userId }, changes);
    if (position > 0) {
      await this.readYourWrites.wait(position);
      // Admission's copy of the token balance moves to the new allotment now, not at the next settlement.
      await this.admission.loadBase('token', token.userId, token.id);
    }
    await this.cache.tokenChanged(token);
    const updated = await this.reader.findOwned(userId, token.id);
    if (!updated) throw new TokenNotFoundError();
    return toTokenJson(updated);
  }

  /**
   * Appends the allotment first: if the configuration write then failed, a retry finds the quota already set
   * and appends nothing. Decided against the balance the user was shown (token_balances), not the last
   * allotment, so an untouched figure is never mistaken for a change. Returns the position to wait for (0: none).
   */
  private async allot(input: UpdateTokenInput, token: TokenView, remainQuota: number, unlimited: boolean): Promise<number> {
    const current = { remainQuota: token.remainQuota, unlimited: token.unlimitedQuota };
    try {
      const result = await this.aggregates.loadAndAppend(
        tokenStream(token.id),
        evolveStored,
        initialTokenQuotaState,
        (state) =>
          decide({ type: 'AllotTokenQuota', userId: token.userId, remainQuota, unlimited, current }, state).map((event) =>
            toNewTokenEvent(event, {
              // Random: the expected revision is what keeps two simultaneous edits from both applying.
              id: randomUUID(),
              metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'token_edit' },
            }),
          ),
        { retries: 0 },
      );
      return result.events.length ? result.position : 0;
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) throw new TokenQuotaChangedError();
      throw error;
    }
  }
}
