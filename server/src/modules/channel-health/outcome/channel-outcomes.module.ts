import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { CHANNEL_OUTCOMES_QUEUE } from './channel-outcome';
import { ChannelOutcomeReporter } from './channel-outcome-reporter';

/**
 * The producer side of the outcomes queue: the reporter the relay hands every channel call to. Kept apart from
 * ChannelHealthModule so the relay imports the reporter without the health commands, the controller and their
 * dependencies.
 */
@Module({
  imports: [BullModule.registerQueue({ name: CHANNEL_OUTCOMES_QUEUE })],
  providers: [ChannelOutcomeReporter],
  exports: [ChannelOutcomeReporter, BullModule],
})
export class ChannelOutcomesModule {}
