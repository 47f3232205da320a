import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { tokenStream } from '#server/ledger/streams';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { decide, initialTokenQuotaState } from '../../token.decider';
import { TokenEntity } from '../../token.entity';
import { TokenGroupNotUsableError } from '../../token.errors';
import { toNewTokenEvent } from '../../token-event-codec';
import { TokenGroupPolicy } from '../../token-groups';
import { generateTokenKey } from '../../token-key';
import { TokenStatus, unixSeconds } from '../../token-status';
import { TokenAuthCache } from '../../token-auth/token-auth-cache';
import { CreateTokenCommand, type CreateTokenResult } from './create-token.command';

/** 62^48 keys make a collision practically impossible; the retry is for the unique index's sake. */
const KEY_ATTEMPTS = 5;

export function isUniqueViolation(error: unknown): boolean {
  const candidate = error as { code?: string; driverError?: { code?: string } };
  return candidate?.code === '23505' || candidate?.driverError?.code === '23505';
}

@CommandHandler(CreateTokenCommand)
export class CreateTokenHandler implements ICommandHandler<CreateTokenCommand> {
  private readonly logger = new Logger(CreateTokenHandler.name);

  constructor(
    private readonly dataSource: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly groups: TokenGroupPolicy,
    private readonly readYourWrites: ReadYourWrites,
    private readonly cache: TokenAuthCache,
  ) {}

  async execute({ input }: CreateTokenCommand): Promise<CreateTokenResult> {
    const { fields } = input;
    // Fix of new-api#7180 (new-api accepts any group here): a token may only name a group the relay would accept.
    if (fields.group && !input.trustedGroup) {
      const verdict = this.groups.judge(fields.group);
      if (!verdict.usable) throw new TokenGroupNotUsableError(verdict.message);
    }
    const created = await this.insertWithFreshKey(input);
    await this.readYourWrites.wait(created.position);
    // Only a remembered "unknown key" could be stale, but the key is new: this is for symmetry and costs little.
    await this.cache.tokenChanged(created);
    return created;
  }

  private async insertWithFreshKey(input: CreateTokenInput): Promise<CreateTokenResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.insert(input, generateTokenKey());
      } catch (error) {
        if (!isUniqueViolation(error) || attempt >= KEY_ATTEMPTS) throw error;
        this.logger.warn('token key collision, generating another key');
      }
    }
  }

  /**
   * The row and the allotment commit together: if the append fails the row is rolled back. (If the commit itself
   * failed after the append, the event would name a token id that never existed; sequences never hand an id out
   * twice, so that event stays harmless.)
   */
  private insert(input: CreateTokenInput, key: string): Promise<CreateTokenResult> {
    const { fields } = input;
    const now = unixSeconds();
    return this.dataSource.transaction(async (manager) => {
      const inserted = await manager.getRepository(TokenEntity).insert({
        userId: input.userId,
        key,
        status: TokenStatus.Enabled,
        name: fields.name,
        createdTime: now,
        accessedTime: now,
        expiredTime: fields.expiredTime,
        unlimitedQuota: fields.unlimitedQuota,
        modelLimitsEnabled: fields.modelLimitsEnabled,
        modelLimits: fields.modelLimits,
        allowIps: fields.allowIps,
        group: fields.group,
      });
      const id = Number(inserted.identifiers[0].id);
      const events = decide(
        { type: 'AllotTokenQuota', userId: input.userId, remainQuota: fields.remainQuota, unlimited: fields.unlimitedQuota, current: null },
        initialTokenQuotaState,
      ).map((event) =>
        toNewTokenEvent(event, {
          // Derived from the token: the creation's allotment can only ever be appended once.
          id: deterministicEventId('token-created', String(id)),
          metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'token_created' },
        }),
      );
      const result = await this.store.appendToStream(tokenStream(id), events, { expectedRevision: 'no_stream' });
      return { id, key, position: result.position };
    });
  }
}

type CreateTokenInput = CreateTokenCommand['input'];
