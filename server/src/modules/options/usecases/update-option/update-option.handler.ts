import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { normalizeOptionValue } from '../../option-rules';
import { OptionsService } from '../../options.service';
import { UpdateOptionCommand } from './update-option.command';

/**
 * Validates first, then saves and reloads every process: an invalid value leaves the previous one live and
 * stored (new-api saved first and wiped the live map on a JSON typo). Unknown keys are accepted and
 * stored as text, as new-api does; nothing reads them. Other differences: docs/console-api.md.
 */
@CommandHandler(UpdateOptionCommand)
export class UpdateOptionHandler implements ICommandHandler<UpdateOptionCommand, string> {
  constructor(private readonly options: OptionsService) {}

  async execute(command: UpdateOptionCommand): Promise<string> {
    const value = normalizeOptionValue(command.key, command.value, (key) => this.options.get(key));
    await this.options.save({ [command.key]: value });
    return value;
  }
}
