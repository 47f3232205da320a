import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { ProjectionRegistry } from '#projections/runner/projection-registry';
import { ProjectionLagReader } from './projection-lag.reader';
import { StatusController } from './status.controller';
import { CheckDatabaseHandler } from './usecases/check-database/check-database.handler';

@Module({
  imports: [DiscoveryModule],
  controllers: [StatusController],
  providers: [CheckDatabaseHandler, ProjectionRegistry, ProjectionLagReader],
})
export class StatusModule {}
