import { CommandHandler, EventBus, type ICommandHandler } from '@nestjs/cqrs';
import { normalizeOptionValue } from '../../option-rules';
import { OptionUpdatedEvent } from '../../option-updated.event';
import { OptionsService } from '../../options.service';
import { UpdateOptionCommand } from './update-option.command';

/**
 * Validates first, then saves and reloads every process: an invalid value leaves the previous one live and
 * stored (new-api saved first and wiped the live map on a JSON typo). Unknown keys are accepted and
 * stored as text, as new-api does; nothing reads them. Other differences: docs/console-api.md. Once saved, an
 * OptionUpdatedEvent is published (LogRetentionDays: the retention job runs again).
 */
@CommandHandler(UpdateOptionCommand)
export class UpdateOptionHandler implements ICommandHandler<UpdateOptionCommand, string> {
  constructor(
    private readonly options: OptionsService,
    private readonly events: EventBus,
  ) {}

  async execute(command: UpdateOptionCommand): Promise<string> {
    const value = normalizeOptionValue(command.key, command.value, (key) => this.options.get(key));
    await this.options.save({ [command.key]: value });
    this.events.publish(new OptionUpdatedEvent(command.key, value));
    return value;
  }
}
