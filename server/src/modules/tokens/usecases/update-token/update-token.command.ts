import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';
import type { TokenEdit } from '../../token-input';
import type { TokenJson } from '../../token.serializer';

export interface UpdateTokenInput {
  userId: number;
  edit: TokenEdit;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/**
 * PUT /api/token/ (full edit) of one of the caller's tokens. Overwrites the fields the body carries (status
 * excepted, as in new-api); a changed remaining quota or unlimited flag is a TokenQuotaAllotted event.
 * Answers the token as the read models show it after the edit.
 */
export class UpdateTokenCommand extends Command<TokenJson> {
  constructor(readonly input: UpdateTokenInput) {
    super();
  }
}
