import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { CHANNEL_VIEW_SELECT, type ChannelJson, type ChannelViewRow, toChannelJson } from '../../channel.serializer';
import { ListChannelsQuery } from './list-channels.query';

export const channelOrder = (idSort: boolean) => (idSort ? 'ORDER BY c.id DESC' : 'ORDER BY c.priority DESC, c.id DESC');

@QueryHandler(ListChannelsQuery)
export class ListChannelsHandler implements IQueryHandler<ListChannelsQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ page, pageSize, idSort }: ListChannelsQuery): Promise<ChannelJson[]> {
    // new-api's LIMIT page_size: a missing or zero page size is an empty page.
    if (pageSize === 0) return [];
    const rows: ChannelViewRow[] = await this.dataSource.query(`${CHANNEL_VIEW_SELECT} ${channelOrder(idSort)} LIMIT $1 OFFSET $2`, [
      pageSize,
      page * pageSize,
    ]);
    return rows.map((row) => toChannelJson(row));
  }
}
