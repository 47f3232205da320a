import { Command } from '@nestjs/cqrs';

/** DELETE /api/channel/:id: the channel and its routing rows (its stream stays in the ledger). Deleting a missing id succeeds, as in new-api. */
export class DeleteChannelCommand extends Command<void> {
  constructor(readonly id: number) {
    super();
  }
}
