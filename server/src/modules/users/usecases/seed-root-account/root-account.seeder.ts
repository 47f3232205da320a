import { Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CommandBus } from '@nestjs/cqrs';
import { SeedRootAccountCommand } from './seed-root-account.command';

/**
 * Runs the seed in every role at start-up (before the api listens). It does not wait for the projections: the
 * projector may be another process that is not up yet; root's balance shows as soon as it projects.
 */
@Injectable()
export class RootAccountSeeder implements OnApplicationBootstrap {
  constructor(private readonly commandBus: CommandBus) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.commandBus.execute(new SeedRootAccountCommand());
  }
}
