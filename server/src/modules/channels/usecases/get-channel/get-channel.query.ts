import { Query } from '@nestjs/cqrs';
import type { ChannelJson } from '../../channel.serializer';

/** One channel with its projected status; `withKey` only for the answer to an edit (as new-api does). */
export class GetChannelQuery extends Query<ChannelJson> {
  constructor(
    readonly id: number,
    readonly withKey = false,
  ) {
    super();
  }
}
