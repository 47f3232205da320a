import type { DataSource } from 'typeorm';
import type { NewEvent } from '#server/ledger/event-store.port';
import { ChannelStatus } from '../../channels/channel.events';
import type { ChannelWrites } from '../../channels/channel-writes';
import type { HealthDecision } from './channel-health.decider';

/**
 * After an automatic decision was appended: the routing rows (`abilities.enabled`) follow the new status in one
 * transaction, and every process reloads its router, exactly as an admin's status change does.
 */
export async function applyDecisionToRouting(
  dataSource: DataSource,
  writes: ChannelWrites,
  channelId: number,
  decision: HealthDecision,
  appended: { events: readonly NewEvent[]; position: number },
): Promise<void> {
  if (decision.kind === 'none') return;
  // The channel decider may have declined (already in that status, or disabled by an admin): nothing to route.
  if (!appended.events.some((event) => event.type === 'ChannelAutoDisabled' || event.type === 'ChannelAutoEnabled')) return;
  const status = decision.kind === 'enable' ? ChannelStatus.Enabled : ChannelStatus.AutoDisabled;
  await dataSource.transaction((manager) => writes.setAbilitiesEnabled(manager, channelId, status));
  await writes.settled(appended.position, [channelId]);
}
