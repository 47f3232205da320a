import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { OptionsService } from '../../options/options.service';
import { CreateUserCommand } from '../../users/usecases/create-user/create-user.command';
import { UserEntity, UserStatus } from '../../users/user.entity';
import { UsernameTakenError } from '../../users/user.errors';
import { AuthError, type AuthErrorCode } from '../auth.errors';
import type { RequestContext } from '../request-input';
import { cleanExternalName } from '../../users/user-input';

/** The user columns that hold a third-party identity. */
export type ExternalIdField = 'githubId' | 'wechatId' | 'telegramId';

const COLUMNS: Record<ExternalIdField, string> = { githubId: 'github_id', wechatId: 'wechat_id', telegramId: 'telegram_id' };

export interface ExternalSignUp {
  /** `github_` / `wechat_`: the new username is the prefix and the next user id. */
  usernamePrefix: string;
  displayName: string;
  email?: string;
}

/**
 * Sign-in, sign-up and binding by a third-party id, shared by GitHub, WeChat and Telegram.
 */
@Injectable()
export class ExternalAccountsService {
  constructor(
    private readonly options: OptionsService,
    private readonly commandBus: CommandBus,
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
  ) {}

  /**
   * The live account bound to the id; a new one when none ever was and registration is open. An id whose
   * account was cancelled stays cancelled ("用户已注销") rather than silently opening a fresh account.
   */
  async signInOrSignUp(field: ExternalIdField, externalId: string, signUp: ExternalSignUp, context: RequestContext): Promise<UserEntity> {
    let user: UserEntity | null;
    if (await this.users.exists({ where: { [field]: externalId }, withDeleted: true })) {
      user = await this.users.findOne({ where: { [field]: externalId }, order: { id: 'ASC' } });
      if (!user) throw new AuthError('user_deleted');
    } else {
      if (!this.options.getBool('RegisterEnabled')) throw new AuthError('register_disabled');
      user = await this.signUp(field, externalId, signUp, context);
    }
    if (user.status !== UserStatus.Enabled) throw new AuthError('user_disabled');
    return user;
  }

  /** The live account bound to the id, for providers that never sign up (Telegram). */
  async boundAccount(field: ExternalIdField, externalId: string): Promise<UserEntity | null> {
    return this.users.findOne({ where: { [field]: externalId }, order: { id: 'ASC' } });
  }

  /**
   * Binds the id to a live user unless any account (cancelled ones included) already holds it. The update
   * re-checks in the same statement, so two accounts racing for one id cannot both get it.
   */
  async bind(field: ExternalIdField, externalId: string, userId: number, alreadyBound: AuthErrorCode): Promise<void> {
    if (await this.users.exists({ where: { [field]: externalId }, withDeleted: true })) throw new AuthError(alreadyBound);
    const column = COLUMNS[field];
    const [, affected] = (await this.users.query(
      `UPDATE users SET ${column} = $1
        WHERE id = $2 AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM users WHERE ${column} = $1)`,
      [externalId, userId],
    )) as [unknown, number];
    if (affected === 1) return;
    if (await this.users.exists({ where: { [field]: externalId }, withDeleted: true })) throw new AuthError(alreadyBound);
    throw new AuthError('user_deleted');
  }

  /** A live, enabled user behind a session (binding through a cancelled or banned account is refused). */
  async activeUser(userId: number): Promise<UserEntity> {
    const user = await this.users.findOne({ where: { id: userId } });
    if (!user) throw new AuthError('user_deleted');
    if (user.status !== UserStatus.Enabled) throw new AuthError('user_disabled');
    return user;
  }

  private async signUp(field: ExternalIdField, externalId: string, signUp: ExternalSignUp, context: RequestContext): Promise<UserEntity> {
    // Two sign-ups at once can pick the same `<prefix><n>`: the loser takes the next free name.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.createAccount(await this.freeUsername(signUp.usernamePrefix), field, externalId, signUp, context);
      } catch (error) {
        if (!(error instanceof UsernameTakenError) || attempt >= 5) throw error;
      }
    }
  }

  private async createAccount(
    username: string,
    field: ExternalIdField,
    externalId: string,
    signUp: ExternalSignUp,
    context: RequestContext,
  ): Promise<UserEntity> {
    const { id } = await this.commandBus.execute(
      new CreateUserCommand({
        username,
        // Nobody knows it: such an account cannot log in with a password until its owner sets one.
        password: randomBytes(10).toString('hex'),
        // A provider's name is cleaned rather than refused: the sign-up is not the user's typing.
        displayName: cleanExternalName(signUp.displayName),
        ...(signUp.email ? { email: signUp.email } : {}),
        [field]: externalId,
        inviterId: 0,
        source: 'oauth',
        actor: { type: 'system' },
        correlationId: context.correlationId,
        clientIp: context.clientIp,
      }),
    );
    const user = await this.users.findOne({ where: { id } });
    if (!user) throw new Error(`user ${id} was created but cannot be read back`);
    return user;
  }

  /**
   * `<prefix><max id + 1>` as new-api names accounts; it skips forward when a user already chose that
   * name by hand (new-api then failed the sign-up on the unique index).
   */
  private async freeUsername(prefix: string): Promise<string> {
    const [{ max }] = (await this.users.query('SELECT COALESCE(MAX(id), 0) AS max FROM users')) as Array<{ max: number | string }>;
    for (let next = Number(max) + 1; ; next += 1) {
      const username = `${prefix}${next}`;
      if (!(await this.users.exists({ where: { username }, withDeleted: true }))) return username;
    }
  }
}
