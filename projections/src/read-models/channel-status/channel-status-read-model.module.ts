import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelStatusEntity } from './channel-status.entity';
import { ChannelStatusProjection } from './channel-status.projection';

/** The projection (found by the runner through its decorator) and the entity channel queries read with. */
@Module({
  imports: [TypeOrmModule.forFeature([ChannelStatusEntity])],
  providers: [ChannelStatusProjection],
  exports: [TypeOrmModule],
})
export class ChannelStatusReadModelModule {}
