import { Command } from '@nestjs/cqrs';

export interface EditUserInput {
  callerId: number;
  callerRole: number;
  id: number;
  /** Absent fields are left alone; present ones are written even when empty or 0 (as new-api does). */
  username?: string;
  displayName?: string;
  group?: string;
  /** Plain text; written only when non-empty. */
  password?: string;
  /** Goes through the ledger (QuotaAdjustedByAdmin), decided against `accountRevision`. */
  quota?: number;
  /** Checked against the caller's role (must be below it unless root), never written. */
  role?: number;
  /** `account_revision` of the GET /api/user/:id the form was filled from. */
  accountRevision?: number;
  correlationId: string;
  clientIp: string | null;
}

/** PUT /api/user/ (admin edit): profile fields in `users`, quota through the ledger, all or nothing. */
export class EditUserCommand extends Command<void> {
  constructor(readonly input: EditUserInput) {
    super();
  }
}
