import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { OptionsService } from '../../options.service';
import { DEFAULT_MODEL_RATIO, pricingJson } from '../../pricing-defaults';
import { ResetModelRatioCommand } from './reset-model-ratio.command';

@CommandHandler(ResetModelRatioCommand)
export class ResetModelRatioHandler implements ICommandHandler<ResetModelRatioCommand, void> {
  constructor(private readonly options: OptionsService) {}

  async execute(): Promise<void> {
    await this.options.save({ ModelRatio: pricingJson(DEFAULT_MODEL_RATIO) });
  }
}
