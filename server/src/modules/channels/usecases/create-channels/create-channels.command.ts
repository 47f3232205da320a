import { Command } from '@nestjs/cqrs';
import type { ChannelFields } from '../../channel-input';
import type { ChannelWriteContext } from '../../channel-writes';

export interface CreateChannelsInput extends ChannelWriteContext {
  /** One per key line (batch add), already validated. */
  channels: ChannelFields[];
  /** 1, or 2 when the form creates them disabled. */
  status: number;
}

/** POST /api/channel/: the channels, their routing rows and (for a disabled start) their ChannelDisabled events. */
export class CreateChannelsCommand extends Command<{ ids: number[] }> {
  constructor(readonly input: CreateChannelsInput) {
    super();
  }
}
