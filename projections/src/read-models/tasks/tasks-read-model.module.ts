import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TaskEntity } from './task.entity';
import { TasksProjection } from './tasks.projection';

/** The projection (found by the runner through its decorator) and the entity the task lists and the poller read with. */
@Module({
  imports: [TypeOrmModule.forFeature([TaskEntity])],
  providers: [TasksProjection],
  exports: [TypeOrmModule],
})
export class TasksReadModelModule {}
