import { Query } from '@nestjs/cqrs';
import type { ChannelJson } from '../../channel.serializer';

/** One channel with its projected status, key hidden. */
export class GetChannelQuery extends Query<ChannelJson> {
  constructor(readonly id: number) {
    super();
  }
}
