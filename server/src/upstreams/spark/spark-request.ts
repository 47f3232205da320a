import { createHmac } from 'node:crypto';
import { type OpenAIChatRequest, parseToolArguments, textOfContent } from '../shared/openai-chat-types';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { UpstreamLocalError } from '../upstream-errors';

export const SPARK_BASE_URL = 'wss://spark-api.xf-yun.com';
export const SPARK_DEFAULT_VERSION = 'v1.1';

export interface SparkCredentials {
  appId: string;
  apiSecret: string;
  apiKey: string;
}

/** The channel key `APPID|APISecret|APIKey`; anything else fails locally. */
export function parseSparkKey(key: string): SparkCredentials {
  const parts = key.split('|').map((part) => part.trim());
  if (parts.length !== 3 || parts.some((part) => part === '')) {
    throw new UpstreamLocalError('the iFlytek Spark channel key must be APPID|APISecret|APIKey', 'invalid_channel_key', 500);
  }
  const [appId, apiSecret, apiKey] = parts;
  return { appId, apiSecret, apiKey };
}

/** The API version: the client's `?api-version=`, else the part after `-` in the model (`SparkDesk-v3.5`), else `other`, else v1.1. */
export function sparkVersion(input: UpstreamRequestInput): string {
  const fromQuery = new URLSearchParams(input.query).get('api-version');
  if (fromQuery) return fromQuery;
  const dash = input.upstreamModel.indexOf('-');
  if (dash >= 0 && dash < input.upstreamModel.length - 1) return input.upstreamModel.slice(dash + 1);
  return input.channel.other || SPARK_DEFAULT_VERSION;
}

const DOMAINS: Readonly<Record<string, string>> = {
  'v1.1': 'general',
  'v2.1': 'generalv2',
  'v3.1': 'generalv3',
  'v3.5': 'generalv3.5',
  'v4.0': '4.0Ultra',
};

export function sparkDomain(version: string): string {
  return DOMAINS[version] ?? `general${version}`;
}

/** Versions whose models take a `system` message (new-api: a model ending in 3.5; 4.0 Ultra takes it too). */
function takesSystem(version: string): boolean {
  return version === 'v3.5' || version === 'v4.0';
}

/**
 * The signed WebSocket URL (iFlytek's HMAC auth): `authorization` is base64 of
 * `api_key="…", algorithm="hmac-sha256", headers="host date request-line", signature="…"`, the signature being
 * base64(HMAC-SHA256(APISecret, "host: …\ndate: …\nGET /<version>/chat HTTP/1.1")). The channel's base URL
 * (http(s) or ws(s)) replaces `wss://spark-api.xf-yun.com`.
 */
export function signedSparkUrl(credentials: SparkCredentials, baseUrl: string | null, version: string, nowMs: number): string {
  const base = new URL((baseUrl || SPARK_BASE_URL).replace(/^http/, 'ws'));
  const path = `${base.pathname.replace(/\/+$/, '')}/${version}/chat`;
  const date = new Date(nowMs).toUTCString();
  const signed = `host: ${base.host}\ndate: ${date}\nGET ${path} HTTP/1.1`;
  const signature = createHmac('sha256', credentials.apiSecret).update(signed).digest('base64');
  const authorization = Buffer.from(
    `api_key="${credentials.apiKey}", algorithm="hmac-sha256", headers="host date request-line", signature="${signature}"`,
  ).toString('base64');
  const query = new URLSearchParams({ authorization, date, host: base.host });
  return `${base.protocol}//${base.host}${path}?${query.toString()}`;
}

/**
 * The request frame: `{header:{app_id}, parameter:{chat:{domain, temperature, top_k, max_tokens}}, payload:{message:{text}}}`.
 * A system message is kept for versions that take one, else it becomes a user turn answered `Okay`, as new-api.
 * Tools go to `payload.functions`. *Difference:* new-api sent `n` as `top_k`; `top_k` is the client's.
 */
export function buildSparkFrame(
  request: OpenAIChatRequest,
  credentials: SparkCredentials,
  version: string,
  user?: string,
): Record<string, unknown> {
  const text: Array<{ role: string; content: string }> = [];
  for (const message of request.messages ?? []) {
    const content = textOfContent(message.content);
    if (message.role === 'system' || message.role === 'developer') {
      if (takesSystem(version)) text.push({ role: 'system', content });
      else text.push({ role: 'user', content }, { role: 'assistant', content: 'Okay' });
    } else if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).map(
        (call) => `${call.function.name}(${JSON.stringify(parseToolArguments(call.function.arguments))})`,
      );
      text.push({ role: 'assistant', content: content || calls.join('\n') });
    } else if (message.role === 'tool' || message.role === 'function') {
      text.push({ role: 'user', content });
    } else {
      text.push({ role: 'user', content });
    }
  }
  const chat: Record<string, unknown> = { domain: sparkDomain(version) };
  if (typeof request.temperature === 'number') chat.temperature = request.temperature;
  if (typeof request.top_k === 'number') chat.top_k = request.top_k;
  const maxTokens = request.max_tokens ?? request.max_completion_tokens;
  if (typeof maxTokens === 'number') chat.max_tokens = maxTokens;
  const payload: Record<string, unknown> = { message: { text } };
  const functions = (request.tools ?? []).filter((tool) => tool.type === 'function').map((tool) => tool.function);
  if (functions.length > 0) payload.functions = { text: functions };
  const header: Record<string, unknown> = { app_id: credentials.appId };
  if (user) header.uid = user.slice(0, 32);
  return { header, parameter: { chat }, payload };
}
