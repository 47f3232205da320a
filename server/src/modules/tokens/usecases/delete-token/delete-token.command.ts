import { Command } from '@nestjs/cqrs';

/**
 * DELETE /api/token/:id: soft-deletes one of the caller's tokens. The key stops working at once in every
 * process; its ledger history and balance row stay (an audit trail is not deleted with a key).
 */
export class DeleteTokenCommand extends Command<void> {
  constructor(
    readonly userId: number,
    readonly tokenId: number,
  ) {
    super();
  }
}
