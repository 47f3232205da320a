import { Command } from '@nestjs/cqrs';

/** DELETE /api/user/self: cancels (soft-deletes) the caller's account; root is refused. */
export class DeleteSelfCommand extends Command<void> {
  constructor(readonly userId: number) {
    super();
  }
}
