import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { OptionEntity } from './option.entity';
import { OptionsService } from './options.service';

/** The option map, available everywhere (the options API itself lives in OptionsModule). */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([OptionEntity])],
  providers: [OptionsService],
  exports: [OptionsService],
})
export class OptionsCoreModule {}
