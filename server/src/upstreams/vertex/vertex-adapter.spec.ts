import { createVerify, generateKeyPairSync } from 'node:crypto';
import { answerFromBytes } from '../shared/call-answer';
import type { UpstreamCallContext, UpstreamRequest, UpstreamRequestInput } from '../upstream-adapter';
import { DEFAULT_UPSTREAM_SETTINGS } from '../upstream-registry';
import { createVertexAdapter } from './vertex-adapter';
import { parseServiceAccount, vertexRegion } from './vertex-credentials';
import { vertexClaudeModel, vertexMode } from './vertex-targets';
import { VertexTokenCache } from './vertex-token';

const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = JSON.stringify({
  project_id: 'p1',
  client_email: 'sa@p1.iam.gserviceaccount.com',
  private_key: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  token_uri: 'https://oauth2.googleapis.com/token',
});
let clock = 1_700_000_000_000;
const settings = { ...DEFAULT_UPSTREAM_SETTINGS, now: () => clock, newId: () => 'id' };
const input = (model: string, overrides: Partial<UpstreamRequestInput> = {}): UpstreamRequestInput => ({
  channel: { type: 41, key, baseUrl: null, other: '{"default":"us-east5","gemini-2.0-flash":"global"}', openaiOrganization: null },
  relayMode: 'chat',
  path: '/v1/chat/completions',
  query: '',
  body: { model, messages: [{ role: 'user', content: 'hi' }] },
  upstreamModel: model,
  isStream: false,
  clientWantsUsage: false,
  ...overrides,
});

/** A context whose HTTP client answers the token endpoint and records every call. */
function tokenContext(calls: UpstreamRequest[], expiresIn = 3600): UpstreamCallContext {
  return {
    headersTimeoutMs: 1000,
    bodyTimeoutMs: 1000,
    http: async (request) => {
      calls.push(request);
      if (request.path.endsWith('/token')) {
        return answerFromBytes(200, 'application/json', JSON.stringify({ access_token: `tok${calls.length}`, expires_in: expiresIn }));
      }
      return answerFromBytes(200, 'application/json', '{}');
    },
  };
}

describe('vertex adapter (type 41)', () => {
  it('reads the service-account key, the region per model and the mode per model', () => {
    expect(parseServiceAccount(key)).toMatchObject({ projectId: 'p1', clientEmail: 'sa@p1.iam.gserviceaccount.com' });
    expect(() => parseServiceAccount('sk-abc')).toThrow('service-account JSON key');
    expect(() => parseServiceAccount('{"project_id":"p"}')).toThrow('project_id, client_email and private_key');
    expect(vertexRegion('europe-west4', ['m'])).toBe('europe-west4');
    expect(vertexRegion('{"default":"us-east5","a":"asia-east1"}', ['x', 'a'])).toBe('asia-east1');
    expect(vertexRegion('{"default":"us-east5"}', ['x'])).toBe('us-east5');
    expect(vertexClaudeModel('claude-3-haiku-20240307')).toBe('claude-3-haiku@20240307');
    expect(vertexClaudeModel('claude-sonnet-4@20250514')).toBe('claude-sonnet-4@20250514');
    expect([vertexMode('claude-x'), vertexMode('gemini-x'), vertexMode('meta/llama3'), vertexMode('gpt-4o')]).toEqual([
      'claude',
      'gemini',
      'openai',
      null,
    ]);
  });

  it('builds each mode on its host and path; global has no region prefix', () => {
    const adapter = createVertexAdapter(settings);
    const claude = adapter.buildRequest(input('claude-3-haiku-20240307', { isStream: true }));
    expect(claude.url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-3-haiku@20240307:streamRawPredict?alt=sse',
    );
    const body = JSON.parse(String(claude.body));
    expect(body).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true, max_tokens: 4096 });
    expect(body.model).toBeUndefined();
    expect(adapter.buildRequest(input('gemini-2.0-flash')).url).toBe(
      'https://aiplatform.googleapis.com/v1/projects/p1/locations/global/publishers/google/models/gemini-2.0-flash:generateContent',
    );
    expect(adapter.buildRequest(input('meta/llama3-405b-instruct-maas')).url).toBe(
      'https://us-east5-aiplatform.googleapis.com/v1beta1/projects/p1/locations/us-east5/endpoints/openapi/chat/completions',
    );
    expect(() => adapter.buildRequest(input('gpt-4o'))).toThrow('not a Claude, Gemini or Llama model');
    const url = 'https://images.example/cat.jpg';
    const withImage = input('claude-3-haiku-20240307', {
      body: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }] },
      media: new Map([[url, { mimeType: 'image/jpeg', data: '/9j/4AAQ' }]]),
    });
    expect(JSON.parse(String(adapter.buildRequest(withImage).body)).messages[0].content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: '/9j/4AAQ' } },
    ]);
  });

  it('signs an RS256 JWT for the grant, sends it to the base URL when set, and caches the token until shortly before expiry', async () => {
    const adapter = createVertexAdapter(settings);
    const calls: UpstreamRequest[] = [];
    const context = tokenContext(calls, 3600);
    const request = input('claude-3-haiku-20240307', { channel: { ...input('x').channel, baseUrl: 'http://fake.local/g' } });
    await adapter.send!(request, adapter.buildRequest(request), context);
    expect(calls.map((call) => call.url)).toEqual([
      'http://fake.local/g/token',
      'http://fake.local/g/v1/projects/p1/locations/us-east5/publishers/anthropic/models/claude-3-haiku@20240307:rawPredict',
    ]);
    expect(calls[1].headers.authorization).toBe('Bearer tok1');
    const form = new URLSearchParams(String(calls[0].body));
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    const [header, claims, signature] = form.get('assertion')!.split('.');
    expect(createVerify('RSA-SHA256').update(`${header}.${claims}`).verify(keys.publicKey, Buffer.from(signature, 'base64url'))).toBe(true);
    expect(JSON.parse(Buffer.from(claims, 'base64url').toString())).toEqual({
      iss: 'sa@p1.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: 'https://oauth2.googleapis.com/token',
      iat: clock / 1000,
      exp: clock / 1000 + 3600,
    });
    await adapter.send!(request, adapter.buildRequest(request), context);
    expect(calls.filter((call) => call.path.endsWith('/token'))).toHaveLength(1);
    clock += 56 * 60 * 1000; // within five minutes of expiry: a new token
    await adapter.send!(request, adapter.buildRequest(request), context);
    expect(calls.filter((call) => call.path.endsWith('/token'))).toHaveLength(2);
    expect(calls.at(-1)!.headers.authorization).toBe(`Bearer tok${calls.length - 1}`);
  });

  it('shares one exchange between concurrent requests, and answers a refused grant as 401 invalid_api_key', async () => {
    const cache = new VertexTokenCache(() => clock);
    const calls: UpstreamRequest[] = [];
    const account = parseServiceAccount(key);
    const [a, b] = await Promise.all([cache.get(account, null, tokenContext(calls)), cache.get(account, null, tokenContext(calls))]);
    expect(a).toEqual(b);
    expect(calls).toHaveLength(1);
    expect(calls[0].url).toBe('https://oauth2.googleapis.com/token');

    const adapter = createVertexAdapter(settings);
    const refusing: UpstreamCallContext = {
      headersTimeoutMs: 1000,
      bodyTimeoutMs: 1000,
      http: async () => answerFromBytes(400, 'application/json', '{"error":"invalid_grant","error_description":"Invalid JWT Signature."}'),
    };
    const request = input('gemini-1.5-pro');
    const answer = await adapter.send!(request, adapter.buildRequest(request), refusing);
    const failure = adapter.mapError(answer.status, await answer.body.bytes());
    expect(failure).toEqual({
      ok: false,
      status: 401,
      error: {
        message: 'Vertex AI access token exchange failed: invalid_grant: Invalid JWT Signature.',
        type: 'authentication_error',
        param: null,
        code: 'invalid_api_key',
      },
    });
  });

  it('replays a Claude-on-Vertex stream split at every byte boundary', () => {
    const adapter = createVertexAdapter(settings);
    const sse = [
      'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Grüße"}}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ].join('');
    const bytes = Buffer.from(sse);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const transformer = adapter.createStreamTransformer(input('claude-3-haiku-20240307', { isStream: true }));
      let out = '';
      for (const part of [bytes.subarray(0, cut), bytes.subarray(cut)]) out += String(transformer.push(part) ?? '');
      expect(transformer.finish('eof')).toMatchObject({ end: 'done', usage: { prompt_tokens: 3, completion_tokens: 2 } });
      expect(out).toContain('"content":"Grüße"');
    }
  });
});
