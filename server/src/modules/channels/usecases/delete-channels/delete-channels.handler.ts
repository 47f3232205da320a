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

  /** new-api answers len(ids) whatever existed; the count of rows actually deleted is what the toast means. */
  async execute({ ids }: DeleteChannelsCommand): Promise<number> {
    // TypeORM answers a DELETE with [returned rows, affected row count], not the rows alone.
    const [deleted] = (await this.dataSource.query('DELETE FROM channels WHERE id = ANY($1::int[]) RETURNING id', [[...ids]])) as [
      Array<{ id: number }>,
      number,
    ];
    await this.writes.settled(
      0,
      deleted.map((row) => row.id),
    );
    return deleted.length;
  }
}
