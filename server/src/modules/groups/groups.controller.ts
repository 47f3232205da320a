import { Controller, Get } from '@nestjs/common';
import { AdminAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { OptionsService } from '../options/options.service';
import { groupNames, usableGroups } from './group-views';

/**
 * Both views read the live options. `/api/user/groups` is a static path beside the users controller's
 * `/api/user/:id`; Fastify's router prefers the static segment, whichever module registers first.
 */
@Controller('api')
export class GroupsController {
  constructor(private readonly options: OptionsService) {}

  @Get('group')
  @AdminAuth()
  list() {
    return ok(groupNames(this.groupRatio()));
  }

  /** Public, as in new-api: the registration and token screens need it. */
  @Get('user/groups')
  usable() {
    return ok(usableGroups(this.groupRatio(), this.jsonObject('UserUsableGroups')));
  }

  private groupRatio(): Record<string, unknown> {
    return this.jsonObject('GroupRatio');
  }

  /** Saved values are validated, but a row edited by hand must not turn into array indexes as group names. */
  private jsonObject(key: string): Record<string, unknown> {
    const value = this.options.getJson<unknown>(key, {});
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  }
}
