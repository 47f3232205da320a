import { Controller, Get } from '@nestjs/common';
import { type AuthenticatedUser, CurrentUser, UserAuth } from '../../common/auth/auth.decorators';
import { ok } from '../../common/http/envelope';
import { modelsByChannelType } from './channel-model-catalogue';
import { ChannelRouter } from './routing/channel-router';

/** The model lists outside /api/channel: GET /api/models (built-in lists per type) and GET /api/user/models. */
@Controller()
export class ModelsController {
  constructor(private readonly router: ChannelRouter) {}

  /**
   * Channel type → built-in models, for the channel form. new-api answers without a `message` key; ours
   * carries an empty one, like every other console answer (a superset its clients read the same way).
   */
  @Get('api/models')
  @UserAuth()
  models() {
    return ok(modelsByChannelType());
  }

  /** The models enabled channels serve in the caller's own group (read fresh from the database by the guard). */
  @Get('api/user/models')
  @UserAuth()
  userModels(@CurrentUser() caller: AuthenticatedUser) {
    return ok(this.router.modelsForGroup(caller.group));
  }
}
