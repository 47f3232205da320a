import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { MidjourneyTaskEntity } from './midjourney-task.entity';
import { MidjourneyTasksProjection } from './midjourney-tasks.projection';

/** The projection (found by the runner through its decorator) and the entity the task lists and the poller read with. */
@Module({
  imports: [TypeOrmModule.forFeature([MidjourneyTaskEntity])],
  providers: [MidjourneyTasksProjection],
  exports: [TypeOrmModule],
})
export class MidjourneyTasksReadModelModule {}
