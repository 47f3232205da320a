import { Command } from '@nestjs/cqrs';

/**
 * POST /api/channel/fix: rebuilds the routing rows of every channel whose rows do not match its configuration and
 * projected status (missing, stale or extra rows); answers how many channels were rebuilt.
 */
export class FixAbilitiesCommand extends Command<number> {
  constructor() {
    super();
  }
}
