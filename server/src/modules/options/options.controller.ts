import { Body, Controller, Get, HttpCode, Post, Put } from '@nestjs/common';
import { CommandBus, QueryBus } from '@nestjs/cqrs';
import { z } from 'zod';
import { RootAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { DomainError, INVALID_PARAMS } from '../../common/http/errors';
import { OPTION_KEY_PATTERN } from './option-rules';
import { GetOptionsQuery } from './usecases/get-options/get-options.query';
import type { OptionView } from './usecases/get-options/get-options.handler';
import { ResetModelRatioCommand } from './usecases/reset-model-ratio/reset-model-ratio.command';
import { UpdateOptionCommand } from './usecases/update-option/update-option.command';

/**
 * new-api decodes `{key:string, value:string}` and answers anything undecodable with HTTP 400. We keep
 * the 400 for bodies of the wrong shape, but accept numbers and booleans as values and store them as
 * strings (the console's switches send booleans).
 */
const updateOptionBody = z.object({
  key: z.string(),
  value: z.union([z.string(), z.number(), z.boolean()]).transform((value) => String(value)),
});

@Controller('api/option')
@RootAuth()
export class OptionsController {
  constructor(
    private readonly commands: CommandBus,
    private readonly queries: QueryBus,
  ) {}

  @Get()
  async list() {
    return ok(await this.queries.execute<GetOptionsQuery, OptionView[]>(new GetOptionsQuery()));
  }

  @Put()
  async update(@Body() body: unknown) {
    const parsed = updateOptionBody.safeParse(body);
    if (!parsed.success) throw new DomainError(INVALID_PARAMS, 'invalid_params', 400);
    if (!OPTION_KEY_PATTERN.test(parsed.data.key)) {
      throw new DomainError(`${INVALID_PARAMS}：选项名须以字母开头，只含字母、数字和下划线，最长 64 个字符`, 'invalid_params');
    }
    await this.commands.execute(new UpdateOptionCommand(parsed.data.key, parsed.data.value));
    return ok();
  }

  @Post('rest_model_ratio')
  @HttpCode(200)
  async resetModelRatio() {
    await this.commands.execute(new ResetModelRatioCommand());
    return ok(undefined, '重置模型倍率成功');
  }
}
