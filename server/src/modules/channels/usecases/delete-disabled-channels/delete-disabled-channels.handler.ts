import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ChannelWrites } from '../../channel-writes';
import { DeleteDisabledChannelsCommand } from './delete-disabled-channels.command';

@CommandHandler(DeleteDisabledChannelsCommand)
export class DeleteDisabledChannelsHandler implements ICommandHandler<DeleteDisabledChannelsCommand> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly writes: ChannelWrites,
  ) {}

  async execute(): Promise<number> {
    // TypeORM answers a DELETE with [returned rows, affected row count], not the rows alone.
    const [deleted] = (await this.dataSource.query(
      'DELETE FROM channels WHERE id IN (SELECT channel_id FROM channel_status WHERE status IN (2, 3)) RETURNING id',
    )) as [Array<{ id: number }>, number];
    await this.writes.settled(
      0,
      deleted.map((row) => row.id),
    );
    return deleted.length;
  }
}
