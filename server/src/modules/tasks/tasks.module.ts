import { Module } from '@nestjs/common';
import { MidjourneyTasksReadModelModule } from '#projections/read-models/midjourney-tasks/midjourney-tasks-read-model.module';
import { TasksReadModelModule } from '#projections/read-models/tasks/tasks-read-model.module';
import { AccountsModule } from '../accounts/accounts.module';
import { MidjourneyTaskLedger } from './midjourney-task.ledger';
import { MidjourneyTaskReader } from './midjourney-task.reader';
import { MidjourneyTasksController } from './midjourney-tasks.controller';
import { SunoTaskLedger } from './suno-task.ledger';
import { TaskReader } from './suno-task.reader';
import { TaskRefunder } from './task-refund';
import { TasksController } from './tasks.controller';

/**
 * Asynchronous tasks: Midjourney (`mjtask-{taskId}` streams, the midjourney_tasks read model, the /api/mj lists)
 * and Suno (`sunotask-{taskId}` streams, the tasks read model, the /api/task lists); the refund of a failed task (QuotaRefunded on the
 * owner's account, TaskRefunder). The relay's routes submit and poll through the ledgers and read through the readers.
 */
@Module({
  imports: [MidjourneyTasksReadModelModule, TasksReadModelModule, AccountsModule],
  controllers: [MidjourneyTasksController, TasksController],
  providers: [MidjourneyTaskLedger, MidjourneyTaskReader, SunoTaskLedger, TaskReader, TaskRefunder],
  exports: [MidjourneyTaskLedger, MidjourneyTaskReader, SunoTaskLedger, TaskReader],
})
export class TasksModule {}
