import { Query } from '@nestjs/cqrs';
import type { ChannelJson } from '../../channel.serializer';

/** GET /api/channel/?p&page_size&id_sort: a page of channels, key hidden; ordered by priority (or id) descending. */
export class ListChannelsQuery extends Query<ChannelJson[]> {
  constructor(
    readonly page: number,
    readonly pageSize: number,
    readonly idSort: boolean,
  ) {
    super();
  }
}
