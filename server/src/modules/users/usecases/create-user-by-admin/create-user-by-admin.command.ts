import { Command } from '@nestjs/cqrs';

export interface CreateUserByAdminInput {
  callerId: number;
  callerRole: number;
  username: string;
  password: string;
  displayName: string;
  /** Only checked (must be below the caller's); the new user is always role 1, as in new-api. */
  role: number;
  correlationId: string;
  clientIp: string | null;
}

/** POST /api/user/: the admin's checks, then CreateUserCommand with source 'admin' (no inviter, no email). */
export class CreateUserByAdminCommand extends Command<{ id: number }> {
  constructor(readonly input: CreateUserByAdminInput) {
    super();
  }
}
