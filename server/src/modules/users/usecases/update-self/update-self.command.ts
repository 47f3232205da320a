import { Command } from '@nestjs/cqrs';

export interface UpdateSelfInput {
  userId: number;
  /** Written only when non-empty. */
  username?: string;
  /** Written only when non-empty. */
  displayName?: string;
  /** Plain text; written (hashed) only when non-empty: an empty password means "unchanged". */
  password?: string;
}

/** PUT /api/user/self (reference §4.2): validated per §3.2, no old-password check in this version. */
export class UpdateSelfCommand extends Command<void> {
  constructor(readonly input: UpdateSelfInput) {
    super();
  }
}
