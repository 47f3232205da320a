import { Command } from '@nestjs/cqrs';
import type { ChannelCommand } from '../../channel.decider';
import type { ChannelWriteContext } from '../../channel-writes';

export interface ChangeChannelStatusInput extends ChannelWriteContext {
  channelId: number;
  command: ChannelCommand;
  reasonCode: string;
  /** Derive it from the cause (test run, outcome job) when the command can be retried; random otherwise. */
  eventId?: string;
}

export interface ChangeChannelStatusResult {
  status: number;
  appended: boolean;
  position: number;
}

/**
 * Any decision on a channel's stream: admin switches, automatic disable/enable, test results and balances. The
 * channel workers (tests, balances, outcome decisions) call this, so a job has the same effect as the click.
 */
export class ChangeChannelStatusCommand extends Command<ChangeChannelStatusResult> {
  constructor(readonly input: ChangeChannelStatusInput) {
    super();
  }
}
