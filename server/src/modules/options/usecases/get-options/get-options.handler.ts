import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { isSecretOption } from '../../option-rules';
import { OptionsService } from '../../options.service';
import { GetOptionsQuery } from './get-options.query';

export interface OptionView {
  key: string;
  value: string;
}

/** Every key of the live map (defaults and saved unknown keys alike) except secrets, sorted for a stable page. */
@QueryHandler(GetOptionsQuery)
export class GetOptionsHandler implements IQueryHandler<GetOptionsQuery, OptionView[]> {
  constructor(private readonly options: OptionsService) {}

  async execute(): Promise<OptionView[]> {
    return this.options
      .entries()
      .filter(([key]) => !isSecretOption(key))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value }));
  }
}
