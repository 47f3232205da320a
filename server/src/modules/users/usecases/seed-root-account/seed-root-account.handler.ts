import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import bcrypt from 'bcryptjs';
import { DataSource } from 'typeorm';
import { deterministicEventId } from '#server/ledger/event-ids';
import { systemActor } from '#server/ledger/event-envelope';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { accountStream } from '#server/ledger/streams';
import { decide, initialAccountState } from '#server/modules/accounts/account.decider';
import { toNewAccountEvent } from '#server/modules/accounts/account-event-codec';
import { quotaDisplayFromOptions } from '#server/modules/accounts/quota-display';
import { OptionsService } from '#server/modules/options/options.service';
import { Role, UserEntity, UserStatus } from '../../user.entity';
import { ROOT_DEFAULT_PASSWORD, ROOT_INITIAL_QUOTA, ROOT_USERNAME, SeedRootAccountCommand } from './seed-root-account.command';

/** Advisory lock id shared by every process of an installation (migrations 7311001, ledger 7311002, projector 7311003). */
export const ROOT_SEED_LOCK = 7_311_010;

@CommandHandler(SeedRootAccountCommand)
export class SeedRootAccountHandler implements ICommandHandler<SeedRootAccountCommand> {
  private readonly logger = new Logger('RootAccount');

  constructor(
    private readonly dataSource: DataSource,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly options: OptionsService,
  ) {}

  async execute(): Promise<{ id: number } | null> {
    const password = await bcrypt.hash(ROOT_DEFAULT_PASSWORD, 10);
    return this.dataSource.transaction(async (manager) => {
      // Processes starting together queue here; the first creates root, the others then see a user and stop.
      await manager.query('SELECT pg_advisory_xact_lock($1)', [ROOT_SEED_LOCK]);
      const [{ exists }] = await manager.query('SELECT EXISTS (SELECT 1 FROM users) AS exists');
      if (exists) return null;
      const root = await manager.save(
        manager.create(UserEntity, {
          username: ROOT_USERNAME,
          password,
          displayName: 'Root User',
          role: Role.Root,
          status: UserStatus.Enabled,
          accessToken: null,
          affCode: null,
        }),
      );
      // Appended before the row commits: if the append fails, no root without quota is left behind (the
      // transaction rolls back and the next start tries again). The id is derived from the root's id, so a
      // repeated append is a no-op.
      const display = quotaDisplayFromOptions(this.options);
      const events = decide({ type: 'GrantQuota', amount: ROOT_INITIAL_QUOTA, kind: 'root_initial' }, initialAccountState).map((event) =>
        toNewAccountEvent(event, {
          id: deterministicEventId('user-created', `${root.id}/root_initial`),
          metadata: { correlationId: `root-seed-${root.id}`, actor: systemActor(), clientIp: null, reasonCode: 'root_signup' },
          annotation: { username: ROOT_USERNAME, quotaDisplay: display },
        }),
      );
      await this.store.appendToStream(accountStream(root.id), events, { expectedRevision: 'any' });
      this.logger.log(`no user exists, create a root user for you: username is ${ROOT_USERNAME}, password is ${ROOT_DEFAULT_PASSWORD}`);
      return { id: root.id };
    });
  }
}
