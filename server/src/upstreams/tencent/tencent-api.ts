import type { Json } from '../shared/converted-text-stream';
import { makeUsage } from '../shared/normalize-usage';
import { type OpenAIChatRequest, textOfContent } from '../shared/openai-chat-types';
import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type {
  OpenAIError,
  TokenUsage,
  UpstreamFailure,
  UpstreamRequest,
  UpstreamRequestInput,
  UpstreamSettings,
} from '../upstream-adapter';
import { UpstreamLocalError } from '../upstream-errors';
import { parseTencentKey, TENCENT_ACTION, TENCENT_VERSION, tencentAuthorization } from './tencent-sign';

export const TENCENT_BASE_URL = 'https://hunyuan.tencentcloudapi.com';

/** The channel key is not `AppId|SecretId|SecretKey`: the channel is misconfigured, so no upstream call is made. */
export class TencentKeyError extends UpstreamLocalError {
  constructor() {
    super('invalid Tencent key: expected AppId|SecretId|SecretKey', 'invalid_channel_key', 500);
  }
}

function roleOf(role: string): string {
  if (role === 'developer') return 'system';
  return role === 'function' ? 'tool' : role;
}

/** An OpenAI chat request → Hunyuan's ChatCompletions (PascalCase); temperature 0 is kept. */
export function buildTencentRequest(request: OpenAIChatRequest, upstreamModel: string, isStream: boolean): Json {
  const out: Json = {
    Model: upstreamModel,
    Messages: (request.messages ?? []).map((message) => ({ Role: roleOf(message.role), Content: textOfContent(message.content) })),
    Stream: isStream,
  };
  if (typeof request.top_p === 'number') out.TopP = request.top_p;
  if (typeof request.temperature === 'number') out.Temperature = request.temperature;
  return out;
}

/** POST to the base URL's root, signed for the host actually called (so a proxy base URL can forward the signature). */
export function buildTencentHttpRequest(input: UpstreamRequestInput, body: string, settings: UpstreamSettings): UpstreamRequest {
  const credentials = parseTencentKey(input.channel.key);
  if (!credentials) throw new TencentKeyError();
  const base = splitBaseUrl(channelBaseUrl(input.channel.baseUrl, TENCENT_BASE_URL, 'tencent'));
  const target = upstreamTarget(base, '/');
  const host = base.origin.slice(base.origin.indexOf('://') + 3);
  const timestampSeconds = Math.floor(settings.now() / 1000);
  const contentType = 'application/json';
  const authorization = tencentAuthorization({ ...credentials, host, contentType, action: TENCENT_ACTION, body, timestampSeconds });
  return {
    ...target,
    method: 'POST',
    headers: {
      'content-type': contentType,
      authorization,
      'x-tc-action': TENCENT_ACTION,
      'x-tc-version': TENCENT_VERSION,
      'x-tc-timestamp': String(timestampSeconds),
      ...(input.isStream ? { accept: 'text/event-stream' } : {}),
    },
    body,
  };
}

export function tencentUsage(usage: unknown): TokenUsage | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const record = usage as Json;
  const count = (value: unknown) => (typeof value === 'number' && value > 0 ? Math.floor(value) : 0);
  return makeUsage(count(record.PromptTokens), count(record.CompletionTokens), { total: count(record.TotalTokens) });
}

/** Hunyuan's finish reasons: `sensitive` → content_filter, `length` → length, `tool_calls` kept, else stop. */
export function mapTencentFinishReason(reason: unknown): string | null {
  if (reason === '' || reason === null || reason === undefined) return null;
  if (reason === 'sensitive') return 'content_filter';
  if (reason === 'length' || reason === 'tool_calls') return reason;
  return 'stop';
}

/**
 * The HTTP status for a Tencent Cloud error code (Tencent answers every error with HTTP 200): AuthFailure.* → 401,
 * so a revoked key disables the channel; RequestLimitExceeded* and LimitExceeded* → 429; InvalidParameter*,
 * MissingParameter, UnsupportedOperation → 400; ResourceInsufficient* → 403; anything else → 500.
 */
export function tencentErrorStatus(code: string): number {
  if (code.startsWith('AuthFailure')) return 401;
  if (code.startsWith('RequestLimitExceeded') || code.startsWith('LimitExceeded')) return 429;
  if (code.startsWith('InvalidParameter') || code.startsWith('MissingParameter') || code.startsWith('UnsupportedOperation')) return 400;
  if (code.startsWith('ResourceInsufficient') || code.startsWith('UnauthorizedOperation')) return 403;
  return 500;
}

/** `{Response: {Error: {Code, Message}}}` (or a bare `{Error}`) as the OpenAI error, or null. */
export function tencentError(body: Json): OpenAIError | null {
  const response = typeof body.Response === 'object' && body.Response !== null ? (body.Response as Json) : body;
  const error = response.Error;
  if (typeof error !== 'object' || error === null) return null;
  const code = typeof error.Code === 'string' ? error.Code : String(error.Code ?? 'InternalError');
  const message = typeof error.Message === 'string' && error.Message !== '' ? error.Message : code;
  return { message, type: 'tencent_error', param: '', code };
}

export function tencentFailure(error: OpenAIError): UpstreamFailure {
  return { ok: false, status: tencentErrorStatus(String(error.code)), error };
}
