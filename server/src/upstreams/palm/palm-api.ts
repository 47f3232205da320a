import type { Json } from '../shared/converted-text-stream';
import { mapUpstreamError } from '../shared/map-upstream-error';
import { type OpenAIChatRequest, textOfContent } from '../shared/openai-chat-types';
import { channelBaseUrl, splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { ConvertedAnswer, OpenAIError, UpstreamFailure, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';

/**
 * PaLM 2's chat model has one name, and new-api always called it whatever the channel's model was called
 * (`PaLM-2` in its model list): the path names chat-bison-001.
 */
export const PALM_PATH = '/v1beta2/models/chat-bison-001:generateMessage';

export function palmRequest(input: UpstreamRequestInput, body: string): UpstreamRequest {
  const target = upstreamTarget(splitBaseUrl(channelBaseUrl(input.channel.baseUrl, '', 'palm')), PALM_PATH);
  return { ...target, method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': input.channel.key }, body };
}

/**
 * An OpenAI chat request → generateMessage: user turns are author "0", the others "1", as new-api; system
 * messages go to `prompt.context` (new-api sent them as author "1" turns). temperature, top_p → topP, top_k → topK,
 * n → candidateCount. *Difference:* new-api sent max_tokens as topK.
 */
export function buildPalmRequest(request: OpenAIChatRequest): Json {
  const context: string[] = [];
  const messages: Array<{ author: string; content: string }> = [];
  for (const message of request.messages ?? []) {
    const content = textOfContent(message.content);
    if (message.role === 'system' || message.role === 'developer') context.push(content);
    else messages.push({ author: message.role === 'user' ? '0' : '1', content });
  }
  const prompt: Json = { messages };
  if (context.length > 0) prompt.context = context.join('\n');
  const out: Json = { prompt };
  if (typeof request.temperature === 'number') out.temperature = request.temperature;
  if (typeof request.top_p === 'number') out.topP = request.top_p;
  if (typeof request.top_k === 'number') out.topK = request.top_k;
  if (typeof request.n === 'number' && request.n > 0) out.candidateCount = request.n;
  return out;
}

/** No candidates: PaLM filtered the prompt or the answer. */
export function palmNoCandidates(body: Json): OpenAIError {
  const filters = Array.isArray(body.filters) ? (body.filters as Json[]) : [];
  const reasons = filters.map((filter) => String(filter.reason ?? '')).filter(Boolean);
  return {
    message: reasons.length > 0 ? `No candidates returned (filtered: ${reasons.join(', ')})` : 'No candidates returned',
    type: 'palm_error',
    param: '',
    code: 'no_candidates',
  };
}

/** The candidates as OpenAI choices. PaLM reports no usage: the relay counts it, so the body carries none rather than zeros. */
export function convertPalmResponse(body: Json, identity: { id: string; created: number; model: string }): ConvertedAnswer {
  const candidates = Array.isArray(body.candidates) ? (body.candidates as Json[]) : [];
  let text = '';
  const choices = candidates.map((candidate, index) => {
    const content = typeof candidate.content === 'string' ? candidate.content : '';
    text += content;
    return { index, message: { role: 'assistant', content }, logprobs: null, finish_reason: 'stop' };
  });
  return {
    body: {
      id: identity.id,
      object: 'chat.completion',
      created: identity.created,
      model: identity.model,
      choices,
    },
    usage: null,
    text,
  };
}

/** Google's error envelope by the common rules; an invalid API key (400 from Google) answers 401 so it disables the channel. */
export function mapPalmError(status: number, body: Uint8Array): UpstreamFailure {
  const failure = mapUpstreamError(status, body);
  if (status === 400 && failure.error.message.startsWith('API key not valid')) return { ...failure, status: 401 };
  return failure;
}
