import { Command } from '@nestjs/cqrs';
import type { ChannelWriteContext } from '../../channel-writes';

export interface CopyChannelInput extends ChannelWriteContext {
  id: number;
  /** Appended to the copy's name. */
  suffix: string;
}

/**
 * POST /api/channel/copy/:id: a new channel with the same configuration, key included, named with the suffix. The
 * console's copy action needs it because no answer carries a saved key (new-api's console posted the listed
 * channel back, which only worked while keys were answered). Usage, balance and test figures start afresh.
 */
export class CopyChannelCommand extends Command<{ id: number }> {
  constructor(readonly input: CopyChannelInput) {
    super();
  }
}
