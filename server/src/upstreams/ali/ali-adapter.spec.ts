import { channel, chatInputFor, dataEvents, everySplit, fixture, runStream, testSettings } from '../testing/upstream-test-kit';
import type { UpstreamCall, UpstreamRequest } from '../upstream-adapter';
import { ConvertRequestError, UnsupportedRelayModeError, UpstreamCallFailure } from '../upstream-errors';
import { createUpstreamRegistry } from '../upstream-registry';
import { createAliAdapter } from './ali-adapter';
import type { TaskPolling } from './ali-images';

const aliChannel = channel({ type: 17, key: 'sk-dashscope', baseUrl: 'http://ali.fake:7000' });
const input = chatInputFor(aliChannel, 'qwen-turbo', 'Hello');
const json = (name: string, status = 200) => ({ status, contentType: 'application/json', body: fixture('ali', name) });
const sent = (request: UpstreamRequest) => JSON.parse(request.body as string) as Record<string, any>;
const sleeps: number[] = [];
const polling: TaskPolling = { intervalMs: 3000, maxPolls: 3, sleep: async (ms) => void sleeps.push(ms) };
const adapter = createAliAdapter(testSettings(), polling);

describe('Alibaba Qwen adapter (type 17)', () => {
  it('sends chat to DashScope text-generation on the channel base URL with Bearer, the plugin header and SSE for streams', () => {
    const plain = adapter.buildRequest(input({}, { channel: { ...aliChannel, other: 'code_interpreter' } }));
    expect(plain.url).toBe('http://ali.fake:7000/api/v1/services/aigc/text-generation/generation');
    expect(plain.headers).toEqual({
      'content-type': 'application/json',
      authorization: 'Bearer sk-dashscope',
      'x-dashscope-plugin': 'code_interpreter',
    });
    const stream = adapter.buildRequest(input({ stream: true }, { isStream: true, channel: { ...aliChannel, baseUrl: null } }));
    expect(stream.url).toBe('https://dashscope.aliyuncs.com/api/v1/services/aigc/text-generation/generation');
    expect(stream.headers['x-dashscope-sse']).toBe('enable');
    expect(sent(stream).parameters.incremental_output).toBe(true);
  });

  it('converts the chat body: messages under input, parameters, top_p inside (0, 1), -internet turns on search', () => {
    const body = sent(
      adapter.buildRequest(
        input(
          {
            messages: [
              { role: 'System', content: 'Be brief.' },
              { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
            ],
            top_p: 1,
            temperature: 0,
            max_tokens: 50,
            seed: 7,
            stop: 'END',
          },
          { upstreamModel: 'qwen-max-internet' },
        ),
      ),
    );
    expect(body).toEqual({
      model: 'qwen-max',
      input: {
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Hi' },
        ],
      },
      parameters: { enable_search: true, top_p: 0.999, temperature: 0, max_tokens: 50, seed: 7, stop: ['END'] },
    });
  });

  it('converts a chat answer with DashScope’s usage', () => {
    const result = adapter.parseResponse(input(), json('chat.json'));
    expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 22, completion_tokens: 14, total_tokens: 36 } });
    expect(JSON.parse((result as { body: string }).body)).toMatchObject({
      object: 'chat.completion',
      model: 'qwen-turbo',
      choices: [{ message: { role: 'assistant', content: '我是通义千问，由阿里云开发的大语言模型。' }, finish_reason: 'stop' }],
    });
  });

  it('maps DashScope errors: type and code = its code, param = request id; 401 and 429 kept', () => {
    expect(adapter.mapError(401, fixture('ali', 'error-invalid-key.json'))).toEqual({
      ok: false,
      status: 401,
      error: {
        message: 'Invalid API-key provided.',
        type: 'InvalidApiKey',
        param: 'fb53c4ec-1c12-4fc4-a580-cdb7c3261fc1',
        code: 'InvalidApiKey',
      },
    });
    expect(adapter.mapError(429, fixture('ali', 'error-throttling.json'))).toMatchObject({
      status: 429,
      error: { code: 'Throttling.RateQuota' },
    });
  });

  it('replays the recorded stream split at every byte boundary, with the usage of the finishing event', () => {
    const bytes = fixture('ali', 'stream.sse');
    const streamInput = input({ stream: true }, { isStream: true, clientWantsUsage: true });
    const fresh = () => createAliAdapter(testSettings()).createStreamTransformer(streamInput);
    const whole = runStream(fresh(), [bytes]);
    expect(whole.summary).toMatchObject({ end: 'done', finishReason: 'stop', usage: { prompt_tokens: 22, completion_tokens: 5 } });
    const events = dataEvents(whole.output) as any[];
    expect(events.map((event) => (event === '[DONE]' ? event : (event.choices[0]?.delta?.content ?? null)))).toEqual([
      '我是',
      '通义千问',
      '。',
      null,
      null,
      '[DONE]',
    ]);
    for (const pieces of everySplit(bytes)) expect(runStream(fresh(), pieces).output).toBe(whole.output);
  });

  it('ends the stream on an error event with DashScope’s code', () => {
    const run = runStream(adapter.createStreamTransformer(input({}, { isStream: true })), [fixture('ali', 'stream-error.sse')]);
    expect(run.summary).toMatchObject({ end: 'upstream_error', error: { code: 'DataInspectionFailed' } });
  });

  it('embeds with the channel’s model and bills total_tokens as the prompt', () => {
    const embedInput = input(
      { input: ['a', 'b'] },
      { relayMode: 'embeddings', path: '/v1/embeddings', upstreamModel: 'text-embedding-v2' },
    );
    const request = adapter.buildRequest(embedInput);
    expect(request.url).toBe('http://ali.fake:7000/api/v1/services/embeddings/text-embedding/text-embedding');
    expect(sent(request)).toEqual({ model: 'text-embedding-v2', input: { texts: ['a', 'b'] } });
    const result = adapter.parseResponse(embedInput, json('embeddings.json'));
    expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 6, completion_tokens: 0 } });
    expect(JSON.parse((result as { body: string }).body).data[1]).toEqual({ object: 'embedding', index: 1, embedding: [0.5, 0.75, -0.25] });
    expect(() => adapter.buildRequest({ ...embedInput, body: { input: [1] } })).toThrow(ConvertRequestError);
  });

  describe('images', () => {
    const imageInput = (body: Record<string, unknown> = {}) =>
      input(
        { prompt: 'a cat', size: '1024x1024', n: 1, ...body },
        { relayMode: 'images-generations', path: '/v1/images/generations', upstreamModel: 'wanx-v1' },
      );

    function taskServer(answers: string[]) {
      const calls: UpstreamRequest[] = [];
      const call: UpstreamCall = async (request) => {
        calls.push(request);
        if (request.url.startsWith('https://dashscope-result'))
          return { status: 200, contentType: 'image/png', body: Buffer.from('PNGDATA') };
        return json(answers[Math.min(calls.length - 1, answers.length - 1)]);
      };
      return { calls, call };
    }

    it('creates the task asynchronously with size W*H', () => {
      const request = adapter.buildRequest(imageInput());
      expect(request.url).toBe('http://ali.fake:7000/api/v1/services/aigc/text2image/image-synthesis');
      expect(request.headers['x-dashscope-async']).toBe('enable');
      expect(sent(request)).toEqual({ model: 'wanx-v1', input: { prompt: 'a cat' }, parameters: { size: '1024*1024', n: 1 } });
    });

    it('polls the task on the channel’s base URL every interval until it succeeds, then answers the image URLs', async () => {
      sleeps.length = 0;
      const { calls, call } = taskServer(['image-task-running.json', 'image-task-succeeded.json']);
      const final = await adapter.complete!(imageInput(), json('image-task-created.json'), call);
      expect(calls.map((request) => [request.method, request.url])).toEqual([
        ['GET', 'http://ali.fake:7000/api/v1/tasks/13b1848b-5493-4c0e-8c44-ca4e6d5b3b0e'],
        ['GET', 'http://ali.fake:7000/api/v1/tasks/13b1848b-5493-4c0e-8c44-ca4e6d5b3b0e'],
      ]);
      expect(calls[0].headers.authorization).toBe('Bearer sk-dashscope');
      expect(sleeps).toEqual([3000, 3000]);
      const result = adapter.parseResponse(imageInput(), final);
      expect(result).toMatchObject({ ok: true, usage: null });
      expect(JSON.parse((result as { body: string }).body).data).toEqual([
        { url: 'https://dashscope-result-bj.oss-cn-beijing.aliyuncs.com/1.png' },
      ]);
    });

    it('inlines the images for response_format b64_json', async () => {
      const { call } = taskServer(['image-task-succeeded.json']);
      const final = await adapter.complete!(imageInput({ response_format: 'b64_json' }), json('image-task-created.json'), call);
      const body = JSON.parse((adapter.parseResponse(imageInput({ response_format: 'b64_json' }), final) as { body: string }).body);
      expect(body.data).toEqual([{ b64_json: Buffer.from('PNGDATA').toString('base64') }]);
    });

    it('a failed task, or one still running after the last poll, is the channel’s failure', async () => {
      const failed = await adapter.complete!(
        imageInput(),
        json('image-task-created.json'),
        taskServer(['image-task-failed.json']).call,
      ).catch((e: unknown) => e);
      expect(failed).toBeInstanceOf(UpstreamCallFailure);
      expect((failed as UpstreamCallFailure).failure.error).toMatchObject({
        code: 'InvalidParameter',
        message: expect.stringContaining('size is not match'),
      });
      const slow = await adapter.complete!(
        imageInput(),
        json('image-task-created.json'),
        taskServer(['image-task-running.json']).call,
      ).catch((e: unknown) => e);
      expect((slow as UpstreamCallFailure).failure).toMatchObject({ status: 504, error: { code: 'ali_task_timeout' } });
    });
  });

  it('refuses other modes and is the registry’s adapter for type 17', () => {
    expect(() => adapter.buildRequest(input({}, { relayMode: 'rerank' }))).toThrow(UnsupportedRelayModeError);
    expect(createUpstreamRegistry().get(17).name).toBe('ali');
  });
});
