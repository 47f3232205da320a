import { randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import { CacheInvalidationService } from '../../infrastructure/redis/cache-invalidation.service';
import { loadAndAppend } from '../../ledger/aggregate-repository';
import { EVENT_STORE, type Actor, type EventStore } from '../../ledger/event-store.port';
import { channelStream } from '../../ledger/streams';
import { ReadYourWrites } from '../accounts/read-your-writes';
import { AbilityEntity } from './ability.entity';
import { type ChannelCommand, type ChannelState, decide, initialChannelState } from './channel.decider';
import { ChannelStatus } from './channel.events';
import type { ChannelFields } from './channel-input';
import { abilityRowsOf } from './channel-record';
import { evolveStored, toNewChannelEvent } from './channel-event-codec';
import { CHANNELS_CHANGED_TOPIC } from './channels.topics';
import { ChannelRouter } from './routing/channel-router';

/** Who asked, for event metadata. */
export interface ChannelWriteContext {
  correlationId: string;
  actor: Actor;
  clientIp: string | null;
}

export interface StatusDecision {
  state: ChannelState;
  /** True when an event was appended (a no-op command appends nothing). */
  appended: boolean;
  /** Ledger position to wait for; 0 when nothing was appended. */
  position: number;
}

/** How many times a status command re-decides after a concurrent append on the same stream (tests, the relay's workers). */
const STATUS_RETRIES = 3;

/**
 * The steps every channel command shares: deciding a status command on `channel-{id}`, rewriting a channel's
 * routing rows, and, after the commit, waiting for the projections and reloading the routers of every process.
 */
@Injectable()
export class ChannelWrites {
  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly readYourWrites: ReadYourWrites,
    private readonly router: ChannelRouter,
    private readonly invalidation: CacheInvalidationService,
  ) {}

  /**
   * Decides `command` against the channel's stream and appends what it decides. Callers hold the channel row's
   * lock (SELECT … FOR UPDATE) so the routing rows they write next agree with the status appended here.
   */
  async decideStatus(
    channelId: number,
    command: ChannelCommand,
    context: ChannelWriteContext & { reasonCode: string; eventId?: string },
  ): Promise<StatusDecision> {
    const result = await loadAndAppend(
      this.store,
      channelStream(channelId),
      evolveStored,
      initialChannelState,
      (state) =>
        decide(command, state).map((event) =>
          toNewChannelEvent(event, {
            id: context.eventId ?? randomUUID(),
            metadata: {
              correlationId: context.correlationId,
              actor: context.actor,
              clientIp: context.clientIp,
              reasonCode: context.reasonCode,
            },
          }),
        ),
      { retries: STATUS_RETRIES },
    );
    return { state: result.state, appended: result.events.length > 0, position: result.events.length ? result.position : 0 };
  }

  /** The channel's status from its stream (1 for a channel without status events). */
  async currentStatus(channelId: number): Promise<number> {
    const history = await this.store.readStream(channelStream(channelId));
    return history.reduce(evolveStored, initialChannelState).status;
  }

  /** Replaces the channel's routing rows (models × groups) inside the caller's transaction. */
  async writeAbilities(manager: EntityManager, channelId: number, fields: ChannelFields, status: number): Promise<void> {
    await manager.delete(AbilityEntity, { channelId });
    const rows = abilityRowsOf(channelId, fields, status === ChannelStatus.Enabled);
    for (let start = 0; start < rows.length; start += 500) {
      await manager.insert(AbilityEntity, rows.slice(start, start + 500));
    }
  }

  /** Flips `enabled` on the channel's routing rows. */
  async setAbilitiesEnabled(manager: EntityManager, channelId: number, status: number): Promise<void> {
    await manager.update(AbilityEntity, { channelId }, { enabled: status === ChannelStatus.Enabled });
  }

  /**
   * After the commit: the read models show `position` (when something was appended), this process routes with the
   * new configuration, and every other process is told to reload.
   */
  async settled(position: number, channelIds: readonly number[] = []): Promise<void> {
    if (position > 0) await this.readYourWrites.wait(position);
    await this.router.reload();
    await this.invalidation.publish(CHANNELS_CHANGED_TOPIC, channelIds.join(','));
  }
}
