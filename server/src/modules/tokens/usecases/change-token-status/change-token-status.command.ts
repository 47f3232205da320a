import { Command } from '@nestjs/cqrs';
import type { TokenJson } from '../../token.serializer';

/**
 * PUT /api/token/?status_only=true: enable (1) or disable (2) one of the caller's tokens. Enabling an expired or
 * exhausted token is refused until its expiry or quota is fixed, as in new-api.
 */
export class ChangeTokenStatusCommand extends Command<TokenJson> {
  constructor(
    readonly userId: number,
    readonly tokenId: number,
    readonly status: 1 | 2,
  ) {
    super();
  }
}
