import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChannelStatusReadModelModule } from '#projections/read-models/channel-status/channel-status-read-model.module';
import { AccountsModule } from '../accounts/accounts.module';
import { AbilityEntity } from './ability.entity';
import { ChannelEntity } from './channel.entity';
import { ChannelKeySweep } from './channel-keys';
import { ChannelWrites } from './channel-writes';
import { ChannelsController } from './channels.controller';
import { ModelsController } from './models.controller';
import { ChannelRouter } from './routing/channel-router';
import { ChangeChannelStatusHandler } from './usecases/change-channel-status/change-channel-status.handler';
import { CopyChannelHandler } from './usecases/copy-channel/copy-channel.handler';
import { CreateChannelsHandler } from './usecases/create-channels/create-channels.handler';
import { DeleteChannelHandler } from './usecases/delete-channel/delete-channel.handler';
import { DeleteChannelsHandler } from './usecases/delete-channels/delete-channels.handler';
import { DeleteDisabledChannelsHandler } from './usecases/delete-disabled-channels/delete-disabled-channels.handler';
import { FetchUpstreamModelsHandler } from './usecases/fetch-upstream-models/fetch-upstream-models.handler';
import { FixAbilitiesHandler } from './usecases/fix-abilities/fix-abilities.handler';
import { GetChannelHandler } from './usecases/get-channel/get-channel.handler';
import { ListChannelsHandler } from './usecases/list-channels/list-channels.handler';
import { SearchChannelsHandler } from './usecases/search-channels/search-channels.handler';
import { UpdateChannelHandler } from './usecases/update-channel/update-channel.handler';

/**
 * Channels: configuration (`channels`, `abilities`), status as events on `channel-{id}` (projected into
 * `channel_status`), the admin API, the model lists, and for the relay the ChannelRouter (contract 2); the outcome
 * reporter (contract 3) is channel-health's. ChangeChannelStatusCommand is the entry point for the channel workers.
 */
@Module({
  imports: [AccountsModule, ChannelStatusReadModelModule, TypeOrmModule.forFeature([ChannelEntity, AbilityEntity])],
  controllers: [ChannelsController, ModelsController],
  providers: [
    ChannelKeySweep,
    ChannelRouter,
    ChannelWrites,
    CreateChannelsHandler,
    CopyChannelHandler,
    UpdateChannelHandler,
    ChangeChannelStatusHandler,
    DeleteChannelHandler,
    DeleteChannelsHandler,
    DeleteDisabledChannelsHandler,
    FixAbilitiesHandler,
    FetchUpstreamModelsHandler,
    GetChannelHandler,
    ListChannelsHandler,
    SearchChannelsHandler,
  ],
  exports: [ChannelRouter, ChannelWrites, TypeOrmModule, ChannelStatusReadModelModule],
})
export class ChannelsModule {}
