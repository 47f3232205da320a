import { mapUpstreamError, parseJsonObject } from '../shared/map-upstream-error';
import type { OpenAIChatRequest } from '../shared/openai-chat-types';
import { convertedSuccess, type RelayMode, type UpstreamAdapter, type UpstreamFailure, type UpstreamSettings } from '../upstream-adapter';
import { UnsupportedRelayModeError } from '../upstream-errors';
import { callSpark } from './spark-call';
import { frameError, frameText, frameUsage, isLastFrame, readFrames } from './spark-frames';
import { buildSparkFrame, parseSparkKey, signedSparkUrl, sparkVersion } from './spark-request';
import { SparkStreamTransformer } from './spark-stream-transformer';

/** A refused handshake (401/403: the HMAC signature or the key) is OpenAI's 401 invalid_api_key; the rest as usual. */
function mapSparkError(status: number, body: Uint8Array): UpstreamFailure {
  if (status === 401 || status === 403) {
    const parsed = parseJsonObject(body);
    const message = typeof parsed?.message === 'string' && parsed.message ? parsed.message : `iFlytek Spark refused the key (${status})`;
    return { ok: false, status: 401, error: { message, type: 'authentication_error', param: null, code: 'invalid_api_key' } };
  }
  return mapUpstreamError(status, body);
}

/**
 * Type 18: OpenAI chat in, iFlytek Spark's chat WebSocket upstream (HMAC-signed URL, one request frame, answer
 * frames until status 2), OpenAI chat out (docs/providers.md, iFlytek Spark).
 */
export function createSparkAdapter(settings: UpstreamSettings): UpstreamAdapter {
  const relayModes = new Set<RelayMode>(['chat']);
  return {
    name: 'spark',
    relayModes,
    needsRemoteMedia: false,
    buildRequest(input) {
      if (!relayModes.has(input.relayMode)) throw new UnsupportedRelayModeError(input.relayMode, 'spark');
      const credentials = parseSparkKey(input.channel.key);
      const version = sparkVersion(input);
      const url = signedSparkUrl(credentials, input.channel.baseUrl, version, settings.now());
      const request = (input.body ?? {}) as OpenAIChatRequest;
      const frame = buildSparkFrame(request, credentials, version, typeof request.user === 'string' ? request.user : undefined);
      const parsed = new URL(url);
      return { origin: parsed.origin, path: parsed.pathname + parsed.search, url, method: 'GET', headers: {}, body: JSON.stringify(frame) };
    },
    send(_input, request, context) {
      return callSpark(request, context);
    },
    parseResponse(input, response) {
      if (response.status < 200 || response.status >= 300) return mapSparkError(response.status, response.body);
      const frames = readFrames(response.body);
      let content = '';
      const calls: Array<{ name: string; arguments: string }> = [];
      let usage = null;
      let complete = false;
      for (const frame of frames) {
        const error = frameError(frame);
        if (error) return { ok: false, status: 500, error };
        const text = frameText(frame);
        content += text.content;
        if (text.call) calls.push(text.call);
        if (isLastFrame(frame)) {
          usage = frameUsage(frame);
          complete = true;
        }
      }
      if (!complete) {
        return {
          ok: false,
          status: 500,
          error: {
            message: 'iFlytek Spark closed before the answer was complete',
            type: 'upstream_error',
            param: '',
            code: 'upstream_stream_cut',
          },
        };
      }
      const message: Record<string, unknown> = { role: 'assistant', content };
      if (calls.length > 0) {
        message.tool_calls = calls.map((call) => ({ id: `call_${settings.newId()}`, type: 'function', function: call }));
      }
      const body = {
        id: `chatcmpl-${settings.newId()}`,
        object: 'chat.completion',
        created: Math.floor(settings.now() / 1000),
        model: input.upstreamModel,
        choices: [{ index: 0, message, finish_reason: calls.length > 0 ? 'tool_calls' : 'stop' }],
        ...(usage ? { usage } : {}),
      };
      return convertedSuccess(200, { body, usage, text: content + calls.map((call) => call.name + call.arguments).join('') });
    },
    createStreamTransformer(input) {
      return new SparkStreamTransformer(input, settings);
    },
    mapError: mapSparkError,
  };
}
