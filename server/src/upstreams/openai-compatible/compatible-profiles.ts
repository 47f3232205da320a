import type { RelayMode, UpstreamRequestInput } from '../upstream-adapter';
import { ChannelType } from '../channel-types';
import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import { ALL_RELAY_MODES_BUT_RERANK, type CompatibleProfile } from './compatible-profile';

/**
 * Custom (8): the base URL is the whole upstream URL, with `{model}` replaced by the mapped model; the
 * client's path and query are not appended, so one channel serves one endpoint.
 */
function customTarget(input: UpstreamRequestInput, baseUrl: string) {
  const url = baseUrl.split('{model}').join(input.upstreamModel);
  const base = splitBaseUrl(url.split('?')[0]);
  const query = url.includes('?') ? url.slice(url.indexOf('?')) : '';
  return upstreamTarget({ origin: base.origin, prefix: '' }, (base.prefix || '/') + query);
}

const modes = (...list: RelayMode[]): ReadonlySet<RelayMode> => new Set(list);

/**
 * The OpenAI-compatible family: each row is a channel type that needs no conversion. Types with no row
 * and no adapter of their own use `genericCompatibleProfile`, OpenAI's protocol on the channel's base URL,
 * as in new-api. Only OpenAI and Ollama get stream_options forced: the others were never sent it by new-api
 * and may reject it, so their stream usage is counted locally unless they report it on their own (Moonshot
 * and SiliconCloud do).
 */
export const compatibleProfiles: ReadonlyMap<number, CompatibleProfile> = new Map<number, CompatibleProfile>([
  [
    ChannelType.Custom,
    { name: 'custom', defaultBaseUrl: '', relayModes: ALL_RELAY_MODES_BUT_RERANK, streamUsage: 'remove', target: customTarget },
  ],
  [
    ChannelType.Zhinao360,
    { name: '360', defaultBaseUrl: 'https://ai.360.cn', relayModes: ALL_RELAY_MODES_BUT_RERANK, streamUsage: 'remove' },
  ],
  [
    ChannelType.FastGPT,
    { name: 'fastgpt', defaultBaseUrl: 'https://fastgpt.run/api/openapi', relayModes: ALL_RELAY_MODES_BUT_RERANK, streamUsage: 'remove' },
  ],
  [
    ChannelType.Moonshot,
    { name: 'moonshot', defaultBaseUrl: 'https://api.moonshot.cn', relayModes: ALL_RELAY_MODES_BUT_RERANK, streamUsage: 'remove' },
  ],
  [
    ChannelType.Yi,
    { name: 'yi', defaultBaseUrl: 'https://api.lingyiwanwu.com', relayModes: ALL_RELAY_MODES_BUT_RERANK, streamUsage: 'remove' },
  ],
  [
    ChannelType.Jina,
    { name: 'jina', defaultBaseUrl: 'https://api.jina.ai', relayModes: modes('embeddings', 'rerank'), streamUsage: 'remove' },
  ],
  [
    ChannelType.SiliconCloud,
    {
      name: 'siliconcloud',
      defaultBaseUrl: 'https://api.siliconflow.cn',
      relayModes: modes('chat', 'embeddings', 'rerank'),
      streamUsage: 'remove',
    },
  ],
]);

/** Every other type without its own adapter: OpenAI's protocol on the channel's base URL. */
export const genericCompatibleProfile: CompatibleProfile = {
  name: 'openai-compatible',
  defaultBaseUrl: '',
  relayModes: ALL_RELAY_MODES_BUT_RERANK,
  streamUsage: 'remove',
};
