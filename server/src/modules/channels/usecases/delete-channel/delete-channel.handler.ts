import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ChannelEntity } from '../../channel.entity';
import { ChannelWrites } from '../../channel-writes';
import { DeleteChannelCommand } from './delete-channel.command';

@CommandHandler(DeleteChannelCommand)
export class DeleteChannelHandler implements ICommandHandler<DeleteChannelCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
  ) {}

  async execute({ id }: DeleteChannelCommand): Promise<void> {
    // Routing rows go with the channel (ON DELETE CASCADE).
    await this.dataSource.getRepository(ChannelEntity).delete({ id });
    await this.writes.settled(0, [id]);
  }
}
