import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { ChannelNotFoundError } from '../../channel.errors';
import { CHANNEL_VIEW_SELECT, type ChannelJson, type ChannelViewRow, toChannelJson } from '../../channel.serializer';
import { GetChannelQuery } from './get-channel.query';

@QueryHandler(GetChannelQuery)
export class GetChannelHandler implements IQueryHandler<GetChannelQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ id }: GetChannelQuery): Promise<ChannelJson> {
    const rows: ChannelViewRow[] = await this.dataSource.query(`${CHANNEL_VIEW_SELECT} WHERE c.id = $1`, [id]);
    if (!rows[0]) throw new ChannelNotFoundError();
    return toChannelJson(rows[0]);
  }
}
