import { RelayError } from '../../relay-error';
import type { RelayChannelRouter, RoutableChannel } from '../../relay-ports';
import { relayLocal } from './error-answer';
import type { RelayContext } from './relay-context';

/** Distribute (reference §3.1): the forced channel, else the token's model limits, then the first channel. */
export function firstChannel(router: RelayChannelRouter, context: RelayContext): RoutableChannel {
  const { caller } = context;
  const forced = caller.specificChannelId;
  if (forced !== null) {
    const channel = router.get(forced);
    if (!channel) throw new RelayError(400, '无效的渠道 Id');
    if (channel.status !== 1) throw new RelayError(403, '该渠道已被禁用');
    return channel;
  }
  if (caller.token.modelLimits && !caller.token.modelLimits.has(context.model)) {
    throw new RelayError(403, `该令牌无权访问模型 ${context.model}`);
  }
  const channel = router.select(caller.group, context.model, { retry: 0 });
  if (!channel) {
    const message = `当前分组 ${caller.group} 下对于模型 ${context.model} 无可用渠道`;
    if (context.playground) throw relayLocal(500, message, 'get_playground_channel_failed');
    throw new RelayError(503, message);
  }
  return channel;
}

/** The model name the channel is asked for: its model_mapping of the requested one. */
export function upstreamModelFor(context: RelayContext, channel: RoutableChannel): string {
  const mapped = channel.modelMapping?.[context.model];
  if (typeof mapped === 'string' && mapped !== '') return mapped;
  if (context.mode === 'moderations' && !(typeof context.body.model === 'string' && context.body.model)) return 'text-moderation-latest';
  return context.model;
}
