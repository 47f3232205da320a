import { parseJsonObject } from '../shared/map-upstream-error';
import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { JsonObject, OpenAIError, UpstreamFailure, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

export const ALI_DEFAULT_BASE_URL = 'https://dashscope.aliyuncs.com';
export const ALI_CHAT_PATH = '/api/v1/services/aigc/text-generation/generation';
export const ALI_EMBEDDINGS_PATH = '/api/v1/services/embeddings/text-embedding/text-embedding';
export const ALI_IMAGES_PATH = '/api/v1/services/aigc/text2image/image-synthesis';

/** A path on the channel's base URL (DashScope's default without one): every call, the task polls included. */
export function aliTarget(input: UpstreamRequestInput, path: string): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  return upstreamTarget(splitBaseUrl(channelBaseUrl(input.channel.baseUrl, ALI_DEFAULT_BASE_URL, 'ali')), path);
}

/** `Authorization: Bearer <key>`, and the channel's `other` as `X-DashScope-Plugin` when set. */
export function aliHeaders(input: UpstreamRequestInput, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${input.channel.key}`, ...extra };
  if (input.channel.other) headers['x-dashscope-plugin'] = input.channel.other;
  return headers;
}

/** DashScope's `{code, message, request_id}` error as new-api words it: type and code = DashScope's code, param = request id. */
export function aliErrorOf(body: JsonObject | null): OpenAIError | null {
  if (!body || typeof body.code !== 'string' || body.code === '') return null;
  return {
    message: typeof body.message === 'string' && body.message !== '' ? body.message : body.code,
    type: body.code,
    param: typeof body.request_id === 'string' ? body.request_id : '',
    code: body.code,
  };
}

/** A DashScope error answer; a 2xx carrying a code is a 500 (DashScope uses HTTP statuses for its errors). */
export function aliFailure(status: number, body: Uint8Array | string): UpstreamFailure | null {
  const error = aliErrorOf(parseJsonObject(body));
  return error ? { ok: false, status: status >= 400 ? status : 500, error } : null;
}
