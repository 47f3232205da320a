import type { WorkerHost } from '@nestjs/bullmq';
import { type DynamicModule, Module, type Provider, type Type } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { MailProcessor } from './mail.processor';
import { ChannelTestsProcessor } from './channel-tests.processor';
import { ChannelBalancesProcessor } from './channel-balances.processor';
import { ChannelOutcomesProcessor } from './channel-outcomes.processor';
import { MidjourneyPollProcessor } from './midjourney-poll.processor';
import { SunoPollProcessor } from './suno-poll.processor';
import { LedgerArchiveProcessor } from './ledger-archive.processor';
import { LogRetentionProcessor } from './log-retention.processor';
import { QueueErrors } from './queue-errors';
import { QueueShutdown } from './queue-shutdown';
import { WorkerShutdown } from './worker-shutdown';

/**
 * Queue consumers (`<job>.processor.ts`). Producers (queues) are registered by their feature modules in
 * every role; consumers only run in the worker role. QueueErrors (every role) reports their connection errors to the
 * Redis outage log; QueueShutdown (every role) closes the producers whose Redis is away at shutdown.
 */
const PROCESSORS: Type<WorkerHost>[] = [
  MailProcessor,
  ChannelTestsProcessor,
  ChannelBalancesProcessor,
  ChannelOutcomesProcessor,
  MidjourneyPollProcessor,
  SunoPollProcessor,
  LedgerArchiveProcessor,
  LogRetentionProcessor,
];

/** Closes the consumers first, so that a blocking connection between two reconnects cannot hang the shutdown. */
const SHUTDOWN: Provider = {
  provide: WorkerShutdown,
  useFactory: (...hosts: WorkerHost[]) => new WorkerShutdown(hosts),
  inject: PROCESSORS,
};

@Module({})
export class WorkersModule {
  static forRoot(enabled: boolean): DynamicModule {
    return {
      module: WorkersModule,
      imports: [DiscoveryModule],
      providers: enabled ? [QueueErrors, QueueShutdown, ...PROCESSORS, SHUTDOWN] : [QueueErrors, QueueShutdown],
    };
  }
}
