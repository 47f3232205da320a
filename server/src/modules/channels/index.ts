/** The channels module's public entry: what the relay uses (routing and the model catalogue). */
export { allCatalogueModels, modelObject, ownerOf } from './channel-model-catalogue';
export { ChannelsModule } from './channels.module';
export { ChannelRouter } from './routing/channel-router';
export type { RoutableChannel } from './routing/routing-table';
