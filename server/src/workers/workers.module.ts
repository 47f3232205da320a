import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { MailProcessor } from './mail.processor';
import { ChannelTestsProcessor } from './channel-tests.processor';
import { ChannelBalancesProcessor } from './channel-balances.processor';
import { ChannelOutcomesProcessor } from './channel-outcomes.processor';
import { MidjourneyPollProcessor } from './midjourney-poll.processor';
import { SunoPollProcessor } from './suno-poll.processor';
import { LedgerArchiveProcessor } from './ledger-archive.processor';
import { LogRetentionProcessor } from './log-retention.processor';

/**
 * Queue consumers (`<job>.processor.ts`). Producers (queues) are registered by their feature modules in
 * every role; consumers only run in the worker role.
 */
const PROCESSORS: Provider[] = [
  MailProcessor,
  ChannelTestsProcessor,
  ChannelBalancesProcessor,
  ChannelOutcomesProcessor,
  MidjourneyPollProcessor,
  SunoPollProcessor,
  LedgerArchiveProcessor,
  LogRetentionProcessor,
];

@Module({})
export class WorkersModule {
  static forRoot(enabled: boolean): DynamicModule {
    return { module: WorkersModule, providers: enabled ? PROCESSORS : [] };
  }
}
