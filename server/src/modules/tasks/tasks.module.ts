import { Module } from '@nestjs/common';
import { MidjourneyTasksReadModelModule } from '#projections/read-models/midjourney-tasks/midjourney-tasks-read-model.module';
import { AccountsModule } from '../accounts/accounts.module';
import { MidjourneyTaskLedger } from './midjourney-task.ledger';
import { MidjourneyTaskReader } from './midjourney-task.reader';
import { MidjourneyTasksController } from './midjourney-tasks.controller';

/**
 * Asynchronous tasks (Midjourney now, Suno later): the `mjtask-{taskId}` streams and their decider, the refund of a
 * failed task (QuotaRefunded on the owner's account), the midjourney_tasks read model and the /api/mj lists. The
 * relay's Midjourney routes submit and poll through MidjourneyTaskLedger and read through MidjourneyTaskReader.
 */
@Module({
  imports: [MidjourneyTasksReadModelModule, AccountsModule],
  controllers: [MidjourneyTasksController],
  providers: [MidjourneyTaskLedger, MidjourneyTaskReader],
  exports: [MidjourneyTaskLedger, MidjourneyTaskReader],
})
export class TasksModule {}
