import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ChannelWrites } from '../../channel-writes';
import { DeleteChannelsCommand } from './delete-channels.command';

@CommandHandler(DeleteChannelsCommand)
export class DeleteChannelsHandler implements ICommandHandler<DeleteChannelsCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
  ) {}

  /** The reference answers len(ids) whatever existed; the count of rows actually deleted is what the toast means. */
  async execute({ ids }: DeleteChannelsCommand): Promise<number> {
    const deleted: Array<{ id: number }> = await this.dataSource.query('DELETE FROM channels WHERE id = ANY($1::int[]) RETURNING id', [[...ids]]);
    await this.writes.settled(0, deleted.map((row) => row.id));
    return deleted.length;
  }
}
