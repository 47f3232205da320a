import { Controller, Get, Query } from '@nestjs/common';
import { AdminAuth, type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { toTaskRow } from './suno-task.serializer';
import { TaskReader } from './suno-task.reader';
import { parseTaskListQuery } from './task-list-input';

/** The task page's lists (Suno): every task (admin) and one's own, newest first, a bare array as new-api answers. */
@Controller('api/task')
export class TasksController {
  constructor(private readonly reader: TaskReader) {}

  @Get()
  @AdminAuth()
  async all(@Query() query: unknown) {
    const { filter, offset, limit } = parseTaskListQuery(query, true);
    const { items } = await this.reader.list(filter, { offset, limit });
    return ok(items.map((task) => toTaskRow(task, true)));
  }

  @Get('self')
  @UserAuth()
  async self(@CurrentUser() user: AuthenticatedUser, @Query() query: unknown) {
    const { filter, offset, limit } = parseTaskListQuery(query, false);
    const { items } = await this.reader.list({ ...filter, userId: user.id }, { offset, limit });
    return ok(items.map((task) => toTaskRow(task, false)));
  }
}
