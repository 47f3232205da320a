import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LogEntity } from './log.entity';
import { LogsProjection } from './logs.projection';

/** The projection (found by the runner through its decorator) and the entity the log API reads with. */
@Module({
  imports: [TypeOrmModule.forFeature([LogEntity])],
  providers: [LogsProjection],
  exports: [TypeOrmModule],
})
export class LogsReadModelModule {}
