import { Command } from '@nestjs/cqrs';

/**
 * DELETE /api/user/:id: erases a user row for good (the console cancels users instead and never calls this).
 * Refused when the account stream has any event: money history must keep naming an existing user, so such a
 * user can only be cancelled (soft-deleted).
 */
export class DeleteUserCommand extends Command<void> {
  constructor(
    readonly id: number,
    readonly callerRole: number,
  ) {
    super();
  }
}
