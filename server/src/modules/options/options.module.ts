import { Module } from '@nestjs/common';
import { OptionBodyStatusHook } from './option-body-status.hook';
import { OptionsController } from './options.controller';
import { GetOptionsHandler } from './usecases/get-options/get-options.handler';
import { ResetModelRatioHandler } from './usecases/reset-model-ratio/reset-model-ratio.handler';
import { UpdateOptionHandler } from './usecases/update-option/update-option.handler';

/** The options API (root only). The option map itself is OptionsCoreModule's, available everywhere. */
@Module({
  controllers: [OptionsController],
  providers: [GetOptionsHandler, UpdateOptionHandler, ResetModelRatioHandler, OptionBodyStatusHook],
})
export class OptionsModule {}
