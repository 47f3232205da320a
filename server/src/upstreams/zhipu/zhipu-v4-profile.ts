import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { JsonObject, RelayMode, UpstreamAdapter, UpstreamSettings } from '../upstream-adapter';
import type { CompatibleProfile } from '../openai-compatible/compatible-profile';
import { createOpenAICompatibleAdapter } from '../openai-compatible/create-openai-compatible-adapter';
import { ZhipuTokenCache } from './zhipu-jwt';

/** Zhipu refuses top_p ≥ 1 (its range is the open interval (0, 1)), so new-api sends 0.99 instead. */
export function clampZhipuTopP(value: unknown): number | undefined {
  return typeof value === 'number' && value >= 1 ? 0.99 : undefined;
}

/** Base64 images go to GLM-4V without their `data:image/...;base64,` prefix, as Zhipu expects. */
function stripDataUrlPrefixes(messages: unknown[]): unknown[] | null {
  let changed = false;
  const out = messages.map((message) => {
    if (typeof message !== 'object' || message === null || !Array.isArray((message as JsonObject).content)) return message;
    const parts = ((message as JsonObject).content as unknown[]).map((part) => {
      const image = typeof part === 'object' && part !== null ? (part as JsonObject).image_url : undefined;
      const url = typeof image === 'string' ? image : typeof image === 'object' && image !== null ? (image as JsonObject).url : undefined;
      if (typeof url !== 'string' || !url.startsWith('data:image/') || !url.includes(',')) return part;
      changed = true;
      const data = url.slice(url.indexOf(',') + 1);
      return { ...(part as JsonObject), image_url: typeof image === 'string' ? data : { ...(image as JsonObject), url: data } };
    });
    return { ...(message as JsonObject), content: parts };
  });
  return changed ? out : null;
}

/**
 * Zhipu GLM-4 / GLM-4V (type 26): OpenAI's chat protocol on `/api/paas/v4/chat/completions`, authenticated with
 * the Zhipu JWT in `Authorization` (no `Bearer`). The stream's last chunk carries the usage, which the compatible
 * transformer reads. `now` dates the tokens.
 */
export function zhipuV4Profile(now: () => number): CompatibleProfile {
  const tokens = new ZhipuTokenCache(now);
  return {
    name: 'zhipu_v4',
    defaultBaseUrl: 'https://open.bigmodel.cn',
    relayModes: new Set<RelayMode>(['chat']),
    streamUsage: 'remove',
    target: (_input, baseUrl) => upstreamTarget(splitBaseUrl(baseUrl), '/api/paas/v4/chat/completions'),
    authHeaders: (channel) => ({ authorization: tokens.token(channel.key) }),
    rewriteBody(body) {
      const changes: JsonObject = {};
      const topP = clampZhipuTopP(body.top_p);
      if (topP !== undefined) changes.top_p = topP;
      const messages = Array.isArray(body.messages) ? stripDataUrlPrefixes(body.messages) : null;
      if (messages) changes.messages = messages;
      if (typeof body.stop === 'string') changes.stop = [body.stop];
      return Object.keys(changes).length > 0 ? changes : null;
    },
  };
}

/** Type 26's adapter: the OpenAI-compatible one with Zhipu's path, JWT and body rules. */
export function createZhipuV4Adapter(settings: UpstreamSettings): UpstreamAdapter {
  return createOpenAICompatibleAdapter(zhipuV4Profile(settings.now), settings);
}
