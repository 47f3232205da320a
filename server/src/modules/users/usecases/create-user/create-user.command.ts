import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface CreateUserInput {
  username: string;
  /** Plain text; the handler hashes it. */
  password: string;
  displayName?: string;
  email?: string;
  githubId?: string;
  wechatId?: string;
  telegramId?: string;
  /** The inviter's user id (0 or absent: none). Resolve an aff_code to an id before sending. */
  inviterId?: number;
  /** Why the user is created: decides nothing but the event metadata's reason code. */
  source: 'register' | 'admin' | 'oauth' | 'root';
  actor: Actor;
  correlationId: string;
  clientIp: string | null;
}

/**
 * Creates a user (always role 1, status 1, group default, a fresh 4-char aff_code) and, through the ledger,
 * grants QuotaForNewUser, the invitee gift and the inviter's reward. Resolves when the read models show it.
 */
export class CreateUserCommand extends Command<{ id: number }> {
  constructor(readonly input: CreateUserInput) {
    super();
  }
}
