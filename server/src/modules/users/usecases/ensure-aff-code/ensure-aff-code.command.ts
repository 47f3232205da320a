import { Command } from '@nestjs/cqrs';

/** GET /api/user/aff: the caller's invite code, generated on demand when empty (root has none at first). */
export class EnsureAffCodeCommand extends Command<string> {
  constructor(readonly userId: number) {
    super();
  }
}
