import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { SecretBox } from '#server/common/crypto/secret-box';
import { deterministicEventId } from '#server/ledger/event-ids';
import { ChannelEntity } from '../../channel.entity';
import { ChannelStatus } from '../../channel.events';
import { sealChannelKey } from '../../channel-keys';
import { columnsOf } from '../../channel-record';
import { ChannelWrites } from '../../channel-writes';
import { CreateChannelsCommand } from './create-channels.command';

@CommandHandler(CreateChannelsCommand)
export class CreateChannelsHandler implements ICommandHandler<CreateChannelsCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
    private readonly box: SecretBox,
  ) {}

  /**
   * Rows, routing rows and status events commit together: if an append fails, no channel is left behind. A channel
   * created disabled gets its ChannelDisabled with an id derived from the channel, so it is appended once.
   */
  async execute({ input }: CreateChannelsCommand): Promise<{ ids: number[] }> {
    const now = Math.floor(Date.now() / 1000);
    let position = 0;
    const ids = await this.dataSource.transaction(async (manager) => {
      const created: number[] = [];
      for (const fields of input.channels) {
        const inserted = await manager.insert(ChannelEntity, {
          ...columnsOf(fields, (key) => sealChannelKey(this.box, key)),
          createdTime: now,
        });
        const id = Number(inserted.identifiers[0].id);
        created.push(id);
        let status: number = ChannelStatus.Enabled;
        if (input.status === ChannelStatus.ManuallyDisabled) {
          const decision = await this.writes.decideStatus(
            id,
            { type: 'DisableChannel' },
            {
              ...input,
              reasonCode: 'channel_created_disabled',
              eventId: deterministicEventId('channel-created-disabled', String(id)),
            },
          );
          status = decision.state.status;
          position = Math.max(position, decision.position);
        }
        await this.writes.writeAbilities(manager, id, fields, status);
      }
      return created;
    });
    await this.writes.settled(position, ids);
    return { ids };
  }
}
