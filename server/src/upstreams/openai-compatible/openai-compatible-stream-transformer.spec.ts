import {
  chatInput,
  dataEvents,
  everySplit,
  fixture,
  FIXED_NOW,
  randomSplits,
  runStream,
  splitAt,
  testSettings,
} from '../testing/upstream-test-kit';
import type { UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { OpenAICompatibleStreamTransformer } from './openai-compatible-stream-transformer';

const streamInput = (overrides: Partial<UpstreamRequestInput> = {}) => chatInput({ isStream: true, ...overrides });
const create = (input = streamInput(), settings: UpstreamSettings = testSettings()) =>
  new OpenAICompatibleStreamTransformer(input, settings);
const withUsage = fixture('openai-compatible', 'chat-stream-with-usage.sse');
const usageLine = (text: string) => text.split('\n\n').find((event) => event.includes('"choices":[]'));

describe('OpenAICompatibleStreamTransformer', () => {
  describe('replaying recorded streams', () => {
    it.each([
      'chat-stream-with-usage.sse',
      'chat-stream-tool-calls.sse',
      'chat-stream-mid-error.sse',
      'chat-stream-moonshot.sse',
      'chat-stream-loose-framing.sse',
      'completion-stream-with-usage.sse',
    ])('gives the same output and summary for %s split at every byte and at random', (name) => {
      const bytes = fixture('openai-compatible', name);
      const input = streamInput({ clientWantsUsage: true, relayMode: name.startsWith('completion') ? 'completions' : 'chat' });
      const whole = runStream(create(input), [bytes], { requestId: 'r1' });
      for (const pieces of everySplit(bytes)) expect(runStream(create(input), pieces, { requestId: 'r1' })).toEqual(whole);
      for (const pieces of randomSplits(bytes, 50)) expect(runStream(create(input), pieces, { requestId: 'r1' })).toEqual(whole);
    });
  });

  it('forwards events byte for byte, holding nothing back', () => {
    const first = withUsage.subarray(0, withUsage.indexOf('\n\n') + 2);
    const transformer = create(streamInput({ clientWantsUsage: true }));
    expect(Buffer.from(transformer.push(first) as Uint8Array).toString()).toBe(first.toString());
  });

  it('bills the upstream usage and drops the usage chunk the client did not ask for', () => {
    const run = runStream(create(streamInput({ clientWantsUsage: false })), [withUsage]);
    expect(run.summary).toEqual({
      end: 'done',
      error: null,
      usage: {
        prompt_tokens: 19,
        completion_tokens: 14,
        total_tokens: 33,
      },
      promptTokens: null,
      completionText: 'Hello! Here is "quoted" text,\n an emoji 😊 and 世界.',
      toolCallCount: 0,
      finishReason: 'stop',
      firstTokenAt: FIXED_NOW,
      eventsForwarded: 15,
    });
    expect(usageLine(run.output)).toBeUndefined();
    expect(run.trailer).toBe('data: [DONE]\n\n');
    expect(run.output).toBe(withUsage.toString().replace(`${usageLine(withUsage.toString())}\n\n`, ''));
  });

  it("forwards the upstream's own usage chunk when the client asked, and adds no second one", () => {
    const run = runStream(create(streamInput({ clientWantsUsage: true })), [withUsage]);
    expect(run.output).toBe(withUsage.toString());
    expect(run.trailer).toBe('data: [DONE]\n\n');
  });

  it('reports a missing usage so the relay counts locally, then sends the relay usage chunk if asked', () => {
    const noUsage = Buffer.from(withUsage.toString().replace(`${usageLine(withUsage.toString())}\n\n`, ''));
    const counted = { prompt_tokens: 20, completion_tokens: 14, total_tokens: 34 };
    const run = runStream(create(streamInput({ clientWantsUsage: true })), [noUsage], { usage: counted });
    expect(run.summary.usage).toBeNull();
    expect(run.summary.completionText).toBe('Hello! Here is "quoted" text,\n an emoji 😊 and 世界.');
    expect(dataEvents(run.trailer)).toEqual([
      {
        id: 'chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT',
        object: 'chat.completion.chunk',
        created: 1741569952,
        model: 'gpt-4o-mini-2024-07-18',
        system_fingerprint: null,
        choices: [],
        usage: counted,
      },
      '[DONE]',
    ]);
  });

  it('counts tool call names and arguments and the most calls in one chunk', () => {
    const run = runStream(create(), [fixture('openai-compatible', 'chat-stream-tool-calls.sse')]);
    expect(run.summary.toolCallCount).toBe(1);
    expect(run.summary.completionText).toBe('get_weather{"location": "Paris, France"}get_weather{"location": "Bogotá, Colombia"}');
    expect(run.summary.finishReason).toBe('tool_calls');
    expect(run.summary.usage?.completion_tokens).toBe(47);
  });

  describe('fixes of new-api behaviour', () => {
    it('reports a stream cut mid-answer (no finish, no [DONE]) as an abnormal end with an error event and no [DONE]', () => {
      const text = withUsage.toString();
      const afterEmoji = text.indexOf('\n\n', text.indexOf('" emoji"')) + 2;
      const cut = Buffer.from(text.slice(0, afterEmoji + 100));
      const counted = { prompt_tokens: 19, completion_tokens: 8, total_tokens: 27 };
      const run = runStream(create(streamInput({ clientWantsUsage: true })), [cut], { usage: counted, requestId: '20250310-abc' });
      expect(run.summary.end).toBe('cut');
      expect(run.summary.usage).toBeNull();
      expect(run.summary.completionText).toBe('Hello! Here is "quoted" text,\n an emoji');
      expect(dataEvents(run.trailer)).toEqual([
        expect.objectContaining({ choices: [], usage: counted }),
        {
          error: {
            message: 'upstream stream ended before the response was complete (request id: 20250310-abc)',
            type: 'upstream_error',
            param: '',
            code: 'upstream_stream_cut',
          },
        },
      ]);
      expect(run.output).not.toContain('[DONE]');
    });

    it('also reports a broken connection mid-line as a cut', () => {
      const run = runStream(create(), splitAt(withUsage, 700).slice(0, 1), { cause: 'connection_error' });
      expect(run.summary.end).toBe('cut');
      expect(run.summary.eventsForwarded).toBe(2);
    });

    it('treats a body closed after finish_reason but before [DONE] as complete', () => {
      const text = withUsage.toString();
      const run = runStream(create(), [Buffer.from(text.slice(0, text.indexOf('"finish_reason":"stop"') + 200))]);
      expect(run.summary.end).toBe('done');
      expect(run.trailer).toBe('data: [DONE]\n\n');
    });

    it('detects an error event mid-stream instead of forwarding it as content', () => {
      const run = runStream(create(), [fixture('openai-compatible', 'chat-stream-mid-error.sse')], { requestId: 'rid' });
      expect(run.summary.end).toBe('upstream_error');
      expect(run.summary.error).toEqual({
        message: 'Upstream provider disconnected: context deadline exceeded',
        type: 'server_error',
        param: null,
        code: 'provider_disconnected',
      });
      expect(run.summary.completionText).toBe('The answer begins');
      expect(run.body).not.toContain('error');
      expect(dataEvents(run.trailer)).toEqual([
        {
          error: {
            message: 'Upstream provider disconnected: context deadline exceeded (request id: rid)',
            type: 'server_error',
            param: null,
            code: 'provider_disconnected',
          },
        },
      ]);
    });

    it('accepts data: without a space, CRLF framing, comments and event lines', () => {
      const run = runStream(create(), [fixture('openai-compatible', 'chat-stream-loose-framing.sse')]);
      expect(run.summary.end).toBe('done');
      expect(run.summary.completionText).toBe('Jawohl');
      expect(
        run.body
          .split('\n\n')
          .filter(Boolean)
          .every((event) => event.startsWith('data: {"id":"chatcmpl-9f8e7d6c5b4a"')),
      ).toBe(true);
      expect(run.summary.eventsForwarded).toBe(3);
    });

    it('accepts lines far longer than the 64 KB limit of new-api, and refuses ones over the configured bound', () => {
      const long = `data: {"choices":[{"index":0,"delta":{"content":"${'x'.repeat(200_000)}"}}]}\n\ndata: [DONE]\n\n`;
      expect(runStream(create(), [Buffer.from(long)]).summary.completionText).toHaveLength(200_000);
      const bounded = runStream(create(streamInput(), testSettings({ maxStreamLineBytes: 1000 })), [Buffer.from(long)]);
      expect(bounded.summary.end).toBe('invalid_stream');
      expect(bounded.summary.error?.code).toBe('upstream_stream_invalid');
    });
  });

  it('reads usage that Moonshot puts on the last choice and keeps that chunk, which carries the finish', () => {
    const run = runStream(create(), [fixture('openai-compatible', 'chat-stream-moonshot.sse')]);
    expect(run.summary.usage).toEqual({ prompt_tokens: 19, completion_tokens: 9, total_tokens: 28 });
    expect(run.body).toContain('"finish_reason":"stop"');
    expect(run.summary.completionText).toBe('你好，我是 Kimi。');
  });

  it('collects completions text from "text" and keeps the text_completion object for its usage chunk', () => {
    const input = streamInput({ relayMode: 'completions', path: '/v1/completions' });
    const run = runStream(create(input), [fixture('openai-compatible', 'completion-stream-with-usage.sse')]);
    expect(run.summary.completionText).toBe('\n\nThis is a test.');
    expect(run.summary.usage?.total_tokens).toBe(12);
  });

  it('reads reasoning and content in order from one chunk of many events, keys only where they are keys', () => {
    const event = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'chatcmpl-r1', object: 'chat.completion.chunk', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, delta, finish_reason: null }], usage: null, ...extra })}\n\n`;
    const chunk = Buffer.from(
      [
        event({ role: 'assistant', content: null, reasoning_content: 'Think' }),
        // A value that spells a key ("error": {...}, "usage": {...}) inside a string is text, not a key.
        event({ reasoning_content: ' "error": {"usage": {"total_tokens": 9}}' }),
        event({ content: 'An', reasoning_content: null }, { error: null }),
        event({ content: 'swer' }),
        `data: ${JSON.stringify({ id: 'chatcmpl-r1', object: 'chat.completion.chunk', created: 1, model: 'deepseek-reasoner', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: null })}\n\n`,
        'data: [DONE]\n\n',
      ].join(''),
    );
    const whole = runStream(create(), [chunk]);
    expect(whole.summary).toMatchObject({
      end: 'done',
      error: null,
      usage: null,
      completionText: 'Think "error": {"usage": {"total_tokens": 9}}Answer',
      finishReason: 'stop',
      eventsForwarded: 5,
    });
    for (const pieces of randomSplits(chunk, 30)) expect(runStream(create(), pieces)).toEqual(whole);
  });

  it('reports an idle timeout before the answer finished', () => {
    const run = runStream(create(), [withUsage.subarray(0, 900)], { cause: 'idle_timeout' });
    expect(run.summary.end).toBe('idle_timeout');
    expect(dataEvents(run.trailer)).toEqual([{ error: expect.objectContaining({ code: 'upstream_stream_timeout' }) }]);
  });

  it('ignores anything after [DONE] and after finish()', () => {
    const transformer = create();
    transformer.push(Buffer.from('data: [DONE]\n\ndata: {"choices":[{"delta":{"content":"late"}}]}\n\n'));
    expect(transformer.push(Buffer.from('data: {"x":1}\n\n'))).toBeNull();
    const summary = transformer.finish('eof');
    expect(summary).toMatchObject({ end: 'done', completionText: '', eventsForwarded: 0, firstTokenAt: null });
    expect(transformer.finish('connection_error')).toBe(summary);
  });
});
