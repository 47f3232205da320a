import { chatInput } from '../testing/upstream-test-kit';
import { buildOpenAICompatibleBody } from './build-openai-compatible-body';

const clientBody = {
  model: 'gpt-4o',
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  temperature: 0,
  top_p: 0,
  n: 1,
  seed: 0,
  presence_penalty: 0,
  parallel_tool_calls: false,
  logit_bias: { '50256': -100 },
  store: true,
  metadata: { session: 'abc' },
  audio: { voice: 'alloy', format: 'wav' },
  some_future_field: { nested: [1, null, false] },
};

describe('buildOpenAICompatibleBody', () => {
  it('forwards every field as sent, zero values and unknown fields included (new-api dropped them)', () => {
    const body = buildOpenAICompatibleBody(chatInput({ body: clientBody, upstreamModel: 'gpt-4o-2024-08-06' }), 'keep', null);
    expect(JSON.parse(body as string)).toEqual({ ...clientBody, model: 'gpt-4o-2024-08-06' });
    expect(body as string).toContain('"temperature":0');
  });

  it('sends the client bytes untouched when the model is unchanged and nothing else must change', () => {
    const rawBody = Buffer.from(JSON.stringify(clientBody, null, 2));
    const input = chatInput({ body: clientBody, rawBody, upstreamModel: 'gpt-4o' });
    expect(buildOpenAICompatibleBody(input, 'keep', null)).toBe(rawBody);
    expect(buildOpenAICompatibleBody(input, 'remove', null)).toBe(rawBody);
  });

  it('asks for the usage chunk on streams, keeping other stream options, and does not mutate the client body', () => {
    const body = { model: 'm', messages: [], stream: true, stream_options: { include_usage: false, other: 1 } };
    const input = chatInput({ body, isStream: true, upstreamModel: 'm', rawBody: Buffer.from('{}') });
    expect(JSON.parse(buildOpenAICompatibleBody(input, 'force', null) as string).stream_options).toEqual({ include_usage: true, other: 1 });
    expect(body.stream_options).toEqual({ include_usage: false, other: 1 });
    const noOptions = chatInput({ body: { model: 'm', stream: true }, isStream: true, upstreamModel: 'm' });
    expect(JSON.parse(buildOpenAICompatibleBody(noOptions, 'force', null) as string).stream_options).toEqual({ include_usage: true });
  });

  it('does not force usage on non-stream requests, and drops stream_options for upstreams that reject it', () => {
    const input = chatInput({ body: { model: 'm', stream_options: { include_usage: true } }, upstreamModel: 'm' });
    expect(JSON.parse(buildOpenAICompatibleBody(input, 'force', null) as string)).toEqual({
      model: 'm',
      stream_options: { include_usage: true },
    });
    expect(JSON.parse(buildOpenAICompatibleBody(input, 'remove', null) as string)).toEqual({ model: 'm' });
  });

  it('applies a profile rewrite, where undefined removes a field', () => {
    const input = chatInput({ body: { model: 'o1-mini', max_tokens: 100 }, upstreamModel: 'o1-mini' });
    const body = buildOpenAICompatibleBody(input, 'keep', { max_tokens: undefined, max_completion_tokens: 100 });
    expect(JSON.parse(body as string)).toEqual({ model: 'o1-mini', max_completion_tokens: 100 });
  });

  it('sets the model when the client sent none (moderations default)', () => {
    const input = chatInput({ relayMode: 'moderations', body: { input: 'text' }, upstreamModel: 'text-moderation-latest' });
    expect(JSON.parse(buildOpenAICompatibleBody(input, 'keep', null) as string)).toEqual({
      input: 'text',
      model: 'text-moderation-latest',
    });
  });
});
