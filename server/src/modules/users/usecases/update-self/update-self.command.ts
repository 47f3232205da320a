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

/** PUT /api/user/self: the profile field rules of `validateProfile`; no old-password check, as in new-api v0.3.0.0. */
export class UpdateSelfCommand extends Command<void> {
  constructor(readonly input: UpdateSelfInput) {
    super();
  }
}
