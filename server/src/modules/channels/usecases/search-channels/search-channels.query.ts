import { Query } from '@nestjs/cqrs';
import type { ChannelJson } from '../../channel.serializer';

/**
 * GET /api/channel/search?keyword&group&model: (id = keyword, or name contains it, or, for root only, key equals
 * it) and models contain `model`, and, when a group is given, the channel is in that group. Key hidden, no paging.
 */
export class SearchChannelsQuery extends Query<ChannelJson[]> {
  constructor(
    readonly keyword: string,
    readonly group: string,
    readonly model: string,
    readonly idSort: boolean,
    /** Whether the keyword may match a channel's exact key (root only). */
    readonly matchKey: boolean,
  ) {
    super();
  }
}
