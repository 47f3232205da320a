import { Inject } from '@nestjs/common';
import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import bcrypt from 'bcryptjs';
import type { Repository } from 'typeorm';
import { deterministicEventId } from '#server/ledger/event-ids';
import type { MetadataInput } from '#server/ledger/event-envelope';
import { EVENT_STORE, type EventStore, type NewEvent } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { decide, initialAccountState } from '#server/modules/accounts/account.decider';
import type { AccountEvent } from '#server/modules/accounts/account.events';
import { toNewAccountEvent } from '#server/modules/accounts/account-event-codec';
import { type QuotaDisplay, quotaDisplayFromOptions } from '#server/modules/accounts/quota-display';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { APP_CONFIG, type AppConfig } from '#server/config/app-config';
import { OptionsService } from '#server/modules/options/options.service';
import { CreateTokenCommand } from '#server/modules/tokens/usecases/create-token/create-token.command';
import { Role, UserEntity, UserStatus } from '../../user.entity';
import { UsernameTakenError } from '../../user.errors';
import { AFF_CODE_UNIQUE, generateAffCode, isUniqueViolation, USERNAME_UNIQUE } from '../../user-credentials';
import { InvalidInputError, runeLength } from '../../user-input';
import { CreateUserCommand, type CreateUserInput } from './create-user.command';

/** The sign-ups that get a default token when GENERATE_DEFAULT_TOKEN is on (not admin-made or root accounts). */
const DEFAULT_TOKEN_SOURCES = new Set<CreateUserInput['source']>(['register', 'oauth']);

/** Invite codes are 4 characters: a clash is rare but real, so a new code is drawn a few times. */
const AFF_CODE_ATTEMPTS = 20;

/** Event ids of a sign-up, derived from the new user's id: a retried append never grants twice. */
export const signUpEventId = (userId: number, what: 'new_user' | 'invitee_gift' | 'inviter_reward' | 'root_initial') =>
  deterministicEventId('user-created', `${userId}/${what}`);

/** An option new-api parses with strconv.Atoi: anything but an integer counts as 0. */
function integerOption(options: OptionsService, key: string): number {
  const value = options.getNumber(key);
  return Number.isSafeInteger(value) ? value : 0;
}

@CommandHandler(CreateUserCommand)
export class CreateUserHandler implements ICommandHandler<CreateUserCommand> {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly options: OptionsService,
    private readonly readYourWrites: ReadYourWrites,
    private readonly commandBus: CommandBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async execute({ input }: CreateUserCommand): Promise<{ id: number }> {
    this.checkColumnBounds(input);
    // Only a live inviter counts: an aff_code lookup never finds a cancelled user either.
    const inviter = input.inviterId ? await this.users.findOne({ where: { id: input.inviterId } }) : null;
    const user = await this.insert(input, inviter?.id ?? 0);

    const display = quotaDisplayFromOptions(this.options);
    const metadata: MetadataInput = {
      correlationId: input.correlationId,
      actor: input.actor,
      clientIp: input.clientIp,
      reasonCode: `${input.source}_signup`,
    };
    const grants: AccountEvent[] = decide(
      { type: 'GrantQuota', amount: integerOption(this.options, 'QuotaForNewUser'), kind: 'new_user' },
      initialAccountState,
    );
    if (inviter) {
      grants.push(
        ...decide(
          { type: 'GrantQuota', amount: integerOption(this.options, 'QuotaForInvitee'), kind: 'invitee_gift' },
          initialAccountState,
        ),
      );
    }
    let position = 0;
    if (grants.length) {
      const events: NewEvent[] = grants.map((event) =>
        toNewAccountEvent(event, {
          id: signUpEventId(user.id, event.type === 'QuotaGranted' ? event.data.kind : 'new_user'),
          metadata,
          annotation: { username: user.username, quotaDisplay: display },
        }),
      );
      // Grants do not depend on the balance, so no expected revision: the ids alone make a retry a no-op.
      position = (await this.store.appendToStream(accountStream(user.id), events, { expectedRevision: 'any' })).position;
    }
    if (inviter) position = Math.max(position, await this.rewardInviter(inviter.id, user.id, metadata, display));
    await this.readYourWrites.wait(position);
    if (this.config.GENERATE_DEFAULT_TOKEN && DEFAULT_TOKEN_SOURCES.has(input.source)) await this.createDefaultToken(user, input);
    return { id: user.id };
  }

  /**
   * GENERATE_DEFAULT_TOKEN=true: a sign-up also gets "<username>的初始令牌",
   * unlimited, never expiring, no model limits, no group (remain_quota 500000 as new-api writes it), through
   * the tokens module's command so its allotment is a ledger event like any other token's. new-api did this
   * for password registration only; here every self sign-up (password, GitHub, WeChat) gets it, never an account an
   * admin creates. A failure fails the sign-up's answer, as in new-api.
   */
  private async createDefaultToken(user: UserEntity, input: CreateUserInput): Promise<void> {
    await this.commandBus.execute(
      new CreateTokenCommand({
        userId: user.id,
        fields: {
          name: `${user.username}的初始令牌`,
          remainQuota: 500_000,
          expiredTime: -1,
          unlimitedQuota: true,
          modelLimitsEnabled: false,
          modelLimits: '',
          allowIps: '',
          group: '',
        },
        actor: input.actor,
        correlationId: input.correlationId,
        clientIp: input.clientIp,
        trustedGroup: true,
      }),
    );
  }

  /**
   * Appended while holding a share lock on the inviter's row, so an admin's hard delete of the inviter either
   * sees this reward in the ledger (and refuses) or has already erased the row (and there is no reward).
   */
  private async rewardInviter(inviterId: number, inviteeId: number, metadata: MetadataInput, display: QuotaDisplay): Promise<number> {
    const reward = decide(
      { type: 'RewardInviter', amount: integerOption(this.options, 'QuotaForInviter'), inviteeId },
      initialAccountState,
    );
    if (!reward.length) return 0;
    return this.users.manager.transaction(async (manager) => {
      const inviter = await manager.findOne(UserEntity, { where: { id: inviterId }, lock: { mode: 'pessimistic_read' } });
      if (!inviter) return 0;
      const events = reward.map((event) =>
        toNewAccountEvent(event, {
          id: signUpEventId(inviteeId, 'inviter_reward'),
          metadata,
          annotation: { username: inviter.username, quotaDisplay: display },
        }),
      );
      return (await this.store.appendToStream(accountStream(inviterId), events, { expectedRevision: 'any' })).position;
    });
  }

  /** Callers apply new-api's field rules; this only keeps values inside the columns (no database error). */
  private checkColumnBounds(input: CreateUserInput): void {
    const fields: Array<[string, string | undefined]> = [
      ['username', input.username],
      ['display_name', input.displayName],
      ['email', input.email],
      ['github_id', input.githubId],
      ['wechat_id', input.wechatId],
      ['telegram_id', input.telegramId],
    ];
    for (const [name, value] of fields) {
      if (value !== undefined && (runeLength(value) > 64 || value.includes('\u0000')))
        throw new InvalidInputError(`${name} 过长或含有非法字符`);
    }
    if (!input.username) throw new InvalidInputError('用户名不能为空');
  }

  private async insert(input: CreateUserInput, inviterId: number): Promise<UserEntity> {
    const password = await bcrypt.hash(input.password, 10);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.users.save(
          this.users.create({
            username: input.username,
            password,
            displayName: input.displayName || input.username,
            role: Role.Common,
            status: UserStatus.Enabled,
            email: input.email ?? '',
            githubId: input.githubId ?? '',
            wechatId: input.wechatId ?? '',
            telegramId: input.telegramId ?? '',
            accessToken: null,
            group: 'default',
            affCode: generateAffCode(),
            inviterId,
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error, USERNAME_UNIQUE)) throw new UsernameTakenError();
        if (!isUniqueViolation(error, AFF_CODE_UNIQUE) || attempt >= AFF_CODE_ATTEMPTS) throw error;
      }
    }
  }
}
