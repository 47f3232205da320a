import { Command } from '@nestjs/cqrs';

export const ROOT_USERNAME = 'root';
export const ROOT_DEFAULT_PASSWORD = '123456';
/** 100000000 quota = $200 at the default QuotaPerUnit, new-api's gift to the first root account. */
export const ROOT_INITIAL_QUOTA = 100_000_000;

/**
 * At start-up, on an empty users table (cancelled users count as users): creates root / 123456, role 100,
 * display name "Root User", and grants its initial quota through the ledger. Safe when several processes start
 * at once. Resolves to the new root's id, or null when there were users already.
 */
export class SeedRootAccountCommand extends Command<{ id: number } | null> {}
