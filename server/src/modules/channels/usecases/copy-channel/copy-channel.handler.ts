import { CommandBus, CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { SecretBox } from '#server/common/crypto/secret-box';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { ChannelStatus } from '../../channel.events';
import { ChannelEntity } from '../../channel.entity';
import { ChannelNotFoundError } from '../../channel.errors';
import { openChannelKey } from '../../channel-keys';
import { fieldsOf } from '../../channel-record';
import { ChannelWrites } from '../../channel-writes';
import { CreateChannelsCommand } from '../create-channels/create-channels.command';
import { CopyChannelCommand } from './copy-channel.command';

@CommandHandler(CopyChannelCommand)
export class CopyChannelHandler implements ICommandHandler<CopyChannelCommand> {
  constructor(
    @InjectRepository(ChannelEntity) private readonly channels: Repository<ChannelEntity>,
    private readonly writes: ChannelWrites,
    private readonly commandBus: CommandBus,
    private readonly box: SecretBox,
  ) {}

  async execute({ input }: CopyChannelCommand): Promise<{ id: number }> {
    const source = await this.channels.findOneBy({ id: input.id });
    if (!source) throw new ChannelNotFoundError();
    // The stored key is sealed; the create command seals what it is given, so it gets the plain key.
    const fields = { ...fieldsOf(source), key: openChannelKey(this.box, source.key) };
    // A channel switched off by hand is copied switched off; an enabled or auto-disabled one starts enabled.
    const status =
      (await this.writes.currentStatus(input.id)) === ChannelStatus.ManuallyDisabled
        ? ChannelStatus.ManuallyDisabled
        : ChannelStatus.Enabled;
    const { ids } = await this.commandBus.execute(
      new CreateChannelsCommand({
        channels: [{ ...fields, name: `${fields.name}${input.suffix}` }],
        status,
        correlationId: input.correlationId,
        actor: input.actor,
        clientIp: input.clientIp,
      }),
    );
    return { id: ids[0] };
  }
}
