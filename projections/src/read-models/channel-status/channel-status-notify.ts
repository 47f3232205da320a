import type { EntityManager } from 'typeorm';
import { ChannelEventType } from '#server/modules/channels/channel.events';

/** Postgres NOTIFY channel: ChannelRouter reloads its snapshot when a status change has been projected. */
export const CHANNEL_STATUS_NOTIFY_CHANNEL = 'tollgate_channel_status';

/** The channel events that change whether a channel is routed to. */
export const CHANNEL_STATUS_EVENTS: ReadonlySet<string> = new Set<string>([
  ChannelEventType.ChannelEnabled,
  ChannelEventType.ChannelDisabled,
  ChannelEventType.ChannelAutoDisabled,
  ChannelEventType.ChannelAutoEnabled,
]);

/**
 * Tells every process's router that channel `channelId`'s status was projected: a NOTIFY inside the writing
 * transaction, delivered at its commit (never for a rolled-back one). Routers reload their whole snapshot, whatever
 * the channel named.
 */
export async function notifyChannelStatus(manager: EntityManager, channelId: number): Promise<void> {
  await manager.query('SELECT pg_notify($1, $2)', [CHANNEL_STATUS_NOTIFY_CHANNEL, String(channelId)]);
}
