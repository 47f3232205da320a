import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { SecretBox } from '#server/common/crypto/secret-box';
import { ChannelEntity } from '../../channel.entity';
import { ChannelNotFoundError } from '../../channel.errors';
import { ChannelStatus } from '../../channel.events';
import { channelUpdateFrom } from '../../channel-input';
import { openChannelKey, sealChannelKey } from '../../channel-keys';
import { columnsOf, fieldsOf } from '../../channel-record';
import { ChannelWrites } from '../../channel-writes';
import { UpdateChannelCommand } from './update-channel.command';

@CommandHandler(UpdateChannelCommand)
export class UpdateChannelHandler implements ICommandHandler<UpdateChannelCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
    private readonly box: SecretBox,
  ) {}

  async execute({ input }: UpdateChannelCommand): Promise<{ position: number }> {
    let position = 0;
    await this.dataSource.transaction(async (manager) => {
      // The row lock orders this edit against status commands on the same channel (see ChannelWrites.decideStatus).
      const current = await manager.findOne(ChannelEntity, { where: { id: input.id }, lock: { mode: 'pessimistic_write' } });
      if (!current) throw new ChannelNotFoundError();
      let status = await this.writes.currentStatus(input.id);
      // An edit with an empty key keeps the stored one: opened here, sealed again (with the current key) below.
      const update = channelUpdateFrom(input.body, { ...fieldsOf(current), key: openChannelKey(this.box, current.key) }, status);
      await manager.update(
        ChannelEntity,
        { id: input.id },
        columnsOf(update.fields, (key) => sealChannelKey(this.box, key)),
      );
      if (update.status !== undefined) {
        const command =
          update.status === ChannelStatus.Enabled ? ({ type: 'EnableChannel' } as const) : ({ type: 'DisableChannel' } as const);
        const decision = await this.writes.decideStatus(input.id, command, { ...input, reasonCode: 'admin_edit' });
        status = decision.state.status;
        position = decision.position;
      }
      await this.writes.writeAbilities(manager, input.id, update.fields, status);
    });
    await this.writes.settled(position, [input.id]);
    return { position };
  }
}
