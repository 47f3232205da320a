import { Controller, Get, Query } from '@nestjs/common';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { OptionsService } from '../options/options.service';
import { parseMidjourneyListQuery } from './midjourney-list-input';
import { MidjourneyTaskReader } from './midjourney-task.reader';
import { toMidjourneyRow } from './midjourney-task.serializer';

/** The drawing page's lists: every task (admin) and one's own, newest first, a bare array as new-api answers. */
@Controller('api/mj')
export class MidjourneyTasksController {
  constructor(
    private readonly reader: MidjourneyTaskReader,
    private readonly options: OptionsService,
  ) {}

  @Get()
  @AdminAuth()
  async all(@Query() query: unknown) {
    const { filter, offset, limit } = parseMidjourneyListQuery(query, true);
    const { items } = await this.reader.list(filter, { offset, limit });
    return ok(items.map((task) => toMidjourneyRow(task, this.options)));
  }

  @Get('self')
  @UserAuth()
  async self(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    const { filter, offset, limit } = parseMidjourneyListQuery(query, false);
    const { items } = await this.reader.list({ ...filter, userId: user.id }, { offset, limit });
    return ok(items.map((task) => toMidjourneyRow(task, this.options)));
  }
}
