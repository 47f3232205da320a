import { Global, Inject, Module, type OnApplicationShutdown } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../config/app-config';
import { AggregateRepository } from './aggregate-repository';
import { createEventStore } from './create-event-store';
import { EVENT_STORE, type EventStore } from './event-store.port';

/**
 * The event store for every role: `@Inject(EVENT_STORE) store: EventStore`, plus AggregateRepository for
 * command handlers. Needs APP_CONFIG (InfrastructureModule).
 */
@Global()
@Module({
  providers: [
    { provide: EVENT_STORE, useFactory: (config: AppConfig) => createEventStore(config), inject: [APP_CONFIG] },
    AggregateRepository,
  ],
  exports: [EVENT_STORE, AggregateRepository],
})
export class LedgerModule implements OnApplicationShutdown {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  // onApplicationShutdown runs after every onModuleDestroy, so the projection runner has stopped using the store.
  async onApplicationShutdown(): Promise<void> {
    await this.store.close();
  }
}
