import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';
import type { TokenFields } from '../../token-input';

export interface CreateTokenInput {
  userId: number;
  fields: TokenFields;
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
  /**
   * Skip the usable-group check (for tokens the system creates itself, e.g. GENERATE_DEFAULT_TOKEN at
   * registration with group '' anyway). Console calls never set it.
   */
  trustedGroup?: boolean;
}

export interface CreateTokenResult {
  id: number;
  key: string;
  /** Ledger position of the allotment (already visible in the read models when the command resolves). */
  position: number;
}

/**
 * Creates a token: the configuration row and its TokenQuotaAllotted, in one database transaction. Resolves once
 * the token-balances projection shows the quota, so the list the console loads next includes it.
 */
export class CreateTokenCommand extends Command<CreateTokenResult> {
  constructor(readonly input: CreateTokenInput) {
    super();
  }
}
