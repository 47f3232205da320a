import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { AbilityEntity } from '../../ability.entity';
import { ChannelEntity } from '../../channel.entity';
import { ChannelStatus } from '../../channel.events';
import { abilityRowsOf, fieldsOf } from '../../channel-record';
import { ChannelWrites } from '../../channel-writes';
import { FixAbilitiesCommand } from './fix-abilities.command';

const rowKey = (row: AbilityEntity) =>
  JSON.stringify([row.group, row.model, row.enabled, Number(row.priority), row.weight, row.tag ?? null]);

@CommandHandler(FixAbilitiesCommand)
export class FixAbilitiesHandler implements ICommandHandler<FixAbilitiesCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
  ) {}

  async execute(): Promise<number> {
    const fixed = await this.dataSource.transaction(async (manager) => {
      const channels = await manager.find(ChannelEntity, { order: { id: 'ASC' }, lock: { mode: 'pessimistic_write' } });
      const statuses: Array<{ channel_id: number; status: number }> = await manager.query('SELECT channel_id, status FROM channel_status');
      const statusOf = new Map(statuses.map((row) => [row.channel_id, row.status]));
      const existing = await manager.find(AbilityEntity);
      const byChannel = new Map<number, string[]>();
      for (const row of existing) byChannel.set(row.channelId, [...(byChannel.get(row.channelId) ?? []), rowKey(row)]);
      let count = 0;
      for (const channel of channels) {
        const fields = fieldsOf(channel);
        const status = statusOf.get(channel.id) ?? ChannelStatus.Enabled;
        const expected = abilityRowsOf(channel.id, fields, status === ChannelStatus.Enabled)
          .map(rowKey)
          .sort();
        const actual = (byChannel.get(channel.id) ?? []).sort();
        if (JSON.stringify(expected) === JSON.stringify(actual)) continue;
        await this.writes.writeAbilities(manager, channel.id, fields, status);
        count++;
      }
      return count;
    });
    await this.writes.settled(0);
    return fixed;
  }
}
