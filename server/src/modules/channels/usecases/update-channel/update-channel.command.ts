import { Command } from '@nestjs/cqrs';
import type { ChannelBody } from '../../channel-input';
import type { ChannelWriteContext } from '../../channel-writes';

export interface UpdateChannelInput extends ChannelWriteContext {
  id: number;
  body: ChannelBody;
}

/**
 * PUT /api/channel/: new-api's "non-zero fields" update of the configuration, then the routing rows; a
 * status in the body that differs from the channel's appends ChannelEnabled or ChannelDisabled.
 */
export class UpdateChannelCommand extends Command<{ position: number }> {
  constructor(readonly input: UpdateChannelInput) {
    super();
  }
}
