import { DEFAULT_UPSTREAM_SETTINGS } from '../upstream-registry';
import type { UpstreamRequestInput } from '../upstream-adapter';
import { createAwsAdapter } from './aws-adapter';
import { parseAwsKey } from './aws-key';
import { awsModelId } from './aws-model-ids';
import { mapBedrockError } from './bedrock-errors';

const adapter = createAwsAdapter({ ...DEFAULT_UPSTREAM_SETTINGS, now: () => 1_700_000_000_000, newId: () => 'x' });
const input = (overrides: Partial<UpstreamRequestInput> = {}): UpstreamRequestInput => ({
  channel: { type: 33, key: 'AK|SK|eu-west-1', baseUrl: null, other: null, openaiOrganization: null },
  relayMode: 'chat',
  path: '/v1/chat/completions',
  query: '',
  body: { model: 'claude-3-haiku-20240307', messages: [{ role: 'user', content: 'hi' }], user: 'u', stream: true },
  upstreamModel: 'claude-3-haiku-20240307',
  isStream: false,
  clientWantsUsage: false,
  ...overrides,
});

describe('aws adapter (type 33)', () => {
  it('reads the key AK|SK|region and refuses any other shape locally', () => {
    expect(parseAwsKey(' AK | SK | us-west-2 ')).toEqual({ accessKeyId: 'AK', secretAccessKey: 'SK', region: 'us-west-2' });
    expect(() => parseAwsKey('AK|SK')).toThrow('AccessKeyId|SecretAccessKey|Region');
    expect(() => parseAwsKey('AK||us-east-1')).toThrow('AccessKeyId|SecretAccessKey|Region');
  });

  it('maps Claude names to Bedrock ids, keeps Bedrock ids, and refuses the rest', () => {
    expect(awsModelId('claude-2.1')).toBe('anthropic.claude-v2:1');
    expect(awsModelId('claude-3-5-sonnet-20240620')).toBe('anthropic.claude-3-5-sonnet-20240620-v1:0');
    expect(awsModelId('anthropic.claude-3-7-sonnet-20250219-v1:0')).toBe('anthropic.claude-3-7-sonnet-20250219-v1:0');
    expect(awsModelId('eu.anthropic.claude-sonnet-4-20250514-v1:0')).toBe('eu.anthropic.claude-sonnet-4-20250514-v1:0');
    expect(() => awsModelId('gpt-4o')).toThrow('model gpt-4o not found');
  });

  it('builds the Bedrock body (no model, stream or metadata) on the regional host, or on the base URL', () => {
    const request = adapter.buildRequest(input());
    expect(request.url).toBe('https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke');
    expect(JSON.parse(String(request.body))).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      max_tokens: 4096,
    });
    const streamed = adapter.buildRequest(input({ isStream: true, channel: { ...input().channel, baseUrl: 'http://proxy.local/aws' } }));
    expect(streamed.url).toBe('http://proxy.local/aws/model/anthropic.claude-3-haiku-20240307-v1%3A0/invoke-with-response-stream');
    expect(() => adapter.buildRequest(input({ relayMode: 'embeddings' }))).toThrow('not supported');
  });

  it('inlines the image URLs the relay fetched (Bedrock takes base64 images only)', () => {
    expect(adapter.needsRemoteMedia).toBe(true);
    const url = 'https://images.example/cat.png';
    const body = { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] };
    const media = new Map([[url, { mimeType: 'image/png', data: 'iVBORw0K' }]]);
    const sent = JSON.parse(String(adapter.buildRequest(input({ body, media })).body));
    expect(sent.messages[0].content).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0K' } }]);
  });

  it('maps AWS errors to the OpenAI shapes the health rules read', () => {
    const body = (type: string, message: string) => JSON.stringify({ __type: type, message });
    expect(mapBedrockError(403, body('UnrecognizedClientException', 'The security token included in the request is invalid.'))).toEqual({
      ok: false,
      status: 401,
      error: {
        message: 'The security token included in the request is invalid.',
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
    expect(mapBedrockError(403, body('AccessDeniedException', 'no access')).error).toMatchObject({ type: 'permission_error' });
    expect(mapBedrockError(429, body('ThrottlingException', 'slow down'))).toMatchObject({
      status: 429,
      error: { code: 'rate_limit_exceeded' },
    });
    expect(mapBedrockError(400, body('ValidationException', 'bad'))).toMatchObject({ status: 400, error: { type: 'ValidationException' } });
    expect(mapBedrockError(500, 'not json')).toMatchObject({ status: 500, error: { message: 'bad response status code 500' } });
  });

  it('reads a Bedrock answer as a Claude message and its usage', () => {
    const body = JSON.stringify({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-3-haiku-20240307',
      content: [{ type: 'text', text: 'Hi!' }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 5, output_tokens: 2 },
    });
    const result = adapter.parseResponse(input(), { status: 200, contentType: 'application/json', body: Buffer.from(body) });
    expect(result).toMatchObject({ ok: true, usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
  });

  it('transforms the re-framed Claude events of a Bedrock stream, split at every byte boundary', () => {
    const events = [
      { type: 'message_start', message: { id: 'm', model: 'claude', usage: { input_tokens: 4, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Héllo' } },
      { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } },
      { type: 'message_stop', 'amazon-bedrock-invocationMetrics': { inputTokenCount: 4, outputTokenCount: 3 } },
    ];
    const bytes = Buffer.from(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join(''));
    for (let cut = 0; cut <= bytes.length; cut++) {
      const transformer = adapter.createStreamTransformer(input({ isStream: true }));
      let out = '';
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) out += String(transformer.push(part) ?? '');
      const summary = transformer.finish('eof');
      expect(summary).toMatchObject({ end: 'done', usage: { prompt_tokens: 4, completion_tokens: 3 }, finishReason: 'stop' });
      expect(out).toContain('"content":"Héllo"');
    }
  });
});
