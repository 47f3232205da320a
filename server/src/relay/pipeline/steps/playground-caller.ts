import type { OptionsService } from '#server/modules/options/index';
import type { JsonObject } from '#server/upstreams/upstream-adapter';
import type { RelayCaller } from '../../relay-ports';
import { relayLocal } from './error-answer';

/** The playground (`/pg/chat/completions`): a session user instead of a token. */
export interface PlaygroundCaller {
  user: { id: number; username: string; group: string; role: number };
  useAccessToken: boolean;
}

/** The playground's caller: the session user in the group the body asks for, if the user may use it. */
export function playgroundCaller(options: OptionsService, playground: PlaygroundCaller, body: JsonObject): RelayCaller {
  if (typeof body.model !== 'string' || body.model === '') throw relayLocal(400, '请选择模型', 'model_required');
  const requested = typeof body.group === 'string' && body.group !== '' ? body.group : playground.user.group;
  if (requested !== playground.user.group) {
    const usable = options.getJson<Record<string, unknown>>('UserUsableGroups', {});
    if (!Object.hasOwn(usable, requested)) throw relayLocal(403, '无权访问该分组', 'group_not_allowed');
  }
  return {
    token: { id: 0, name: `playground-${requested}`, key: '', group: requested, unlimitedQuota: true, modelLimits: null },
    user: playground.user,
    group: requested,
    specificChannelId: null,
  };
}
