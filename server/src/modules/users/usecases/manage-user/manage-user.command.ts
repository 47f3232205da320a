import { Command } from '@nestjs/cqrs';

/** POST /api/user/manage `{id, action}`: answers the target's resulting `{role, status}`. */
export class ManageUserCommand extends Command<{ role: number; status: number }> {
  constructor(
    readonly id: number,
    readonly action: string,
    readonly callerRole: number,
  ) {
    super();
  }
}
