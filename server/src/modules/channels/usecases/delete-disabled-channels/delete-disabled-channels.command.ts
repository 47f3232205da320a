import { Command } from '@nestjs/cqrs';

/** DELETE /api/channel/disabled: every channel whose projected status is 2 or 3; answers the count. */
export class DeleteDisabledChannelsCommand extends Command<number> {
  constructor() {
    super();
  }
}
