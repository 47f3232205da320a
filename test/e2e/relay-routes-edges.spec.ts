import { expectRelayError, type RelayRoutesContext, relayRoutesFixture } from './relay-routes-support';

jest.setTimeout(120_000);

/**
 * What every relay route shares: bad bodies (malformed, non-object, over-sized) and bad tokens answered in the
 * middleware shape, the 501 routes (token first), and CORS on relay paths, charging nothing.
 */
describe('relay routes: bad input, 501 routes and CORS', () => {
  const fixture = relayRoutesFixture();
  const { post, nothingCharged } = fixture;
  let baseURL: string;
  let origin: string;
  let alice: RelayRoutesContext['alice'];

  beforeAll(() => {
    ({ baseURL, origin, alice } = fixture.context);
  });

  describe('bad input on every POST route', () => {
    const routes = [
      '/v1/chat/completions',
      '/v1/completions',
      '/v1/embeddings',
      '/v1/engines/text-embedding-ada-002/embeddings',
      '/v1/moderations',
      '/v1/images/generations',
      '/v1/audio/speech',
      '/v1/rerank',
    ];

    it('answers malformed JSON and non-object bodies 400 in the middleware shape, charging nothing', async () => {
      await nothingCharged(async () => {
        for (const path of routes) {
          for (const body of ['{"model": ', '"text"', 'null', '']) {
            const response = await post(path, body);
            const answer = (await response.json()) as { error: Record<string, unknown> };
            expect({ path, body, status: response.status }).toEqual({ path, body, status: 400 });
            expect(answer).toEqual({
              error: { message: expect.stringMatching(/^无效的请求, .* \(request id: [0-9a-f-]+\)$/), type: 'new_api_error' },
            });
          }
        }
      });
    });

    it('answers an over-sized body 413 and a bad token 401 on every route, charging nothing', async () => {
      const huge = Buffer.alloc(33 * 1024 * 1024, 0x20);
      await nothingCharged(async () => {
        for (const path of [...routes, '/v1/audio/transcriptions', '/v1/audio/translations']) {
          const response = await post(path, huge);
          expect({ path, status: response.status }).toEqual({ path, status: 413 });
          await expectRelayError(response, 413, {
            type: 'new_api_error',
            message: expect.stringMatching(/^无效的请求, http: request body too large/),
          });
          const unauthenticated = await post(path, JSON.stringify({ model: 'gpt-3.5-turbo' }), {}, 'sk-not-a-token');
          await expectRelayError(unauthenticated, 401, { type: 'new_api_error' });
        }
      });
    });
  });

  describe('not implemented routes', () => {
    it('authenticate the token first, then answer 501 api_not_implemented, charging nothing', async () => {
      const routes: Array<[string, string]> = [
        ['POST', '/v1/images/edits'],
        ['POST', '/v1/images/variations'],
        ['POST', '/v1/edits'],
        ['GET', '/v1/files'],
        ['POST', '/v1/files'],
        ['GET', '/v1/files/file-1'],
        ['DELETE', '/v1/files/file-1'],
        ['GET', '/v1/files/file-1/content'],
        ['POST', '/v1/fine-tunes'],
        ['GET', '/v1/fine-tunes'],
        ['GET', '/v1/fine-tunes/ft-1'],
        ['POST', '/v1/fine-tunes/ft-1/cancel'],
        ['GET', '/v1/fine-tunes/ft-1/events'],
        ['DELETE', '/v1/models/gpt-3.5-turbo'],
      ];
      await nothingCharged(async () => {
        for (const [method, path] of routes) {
          const response = await fetch(`${origin}${path}`, { method, headers: { authorization: `Bearer ${alice.key}` } });
          expect({ method, path, status: response.status }).toEqual({ method, path, status: 501 });
          expect(response.headers.get('x-oneapi-request-id')).toBeTruthy();
          expect(await response.json()).toEqual({
            error: { message: 'API not implemented', type: 'new_api_error', param: '', code: 'api_not_implemented' },
          });

          const badToken = await fetch(`${origin}${path}`, { method, headers: { authorization: 'Bearer sk-not-a-token' } });
          expect({ method, path, status: badToken.status }).toEqual({ method, path, status: 401 });
          await expectRelayError(badToken, 401, { type: 'new_api_error' });

          const noToken = await fetch(`${origin}${path}`, { method });
          expect({ method, path, status: noToken.status }).toEqual({ method, path, status: 401 });
          expect(await noToken.json()).toEqual({
            error: { message: expect.stringMatching(/^未提供令牌 \(request id: /), type: 'new_api_error' },
          });
        }
      });
    });
  });

  describe('CORS on relay routes', () => {
    it('answers a preflight 204 with the CORS headers new-api sends, allowing the Authorization header', async () => {
      for (const path of ['/v1/chat/completions', '/v1/audio/transcriptions', '/pg/chat/completions', '/v1/models']) {
        const response = await fetch(`${origin}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://app.example',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type',
          },
        });
        expect({ path, status: response.status }).toEqual({ path, status: 204 });
        expect(Object.fromEntries([...response.headers].filter(([name]) => name.startsWith('access-control-')))).toEqual({
          'access-control-allow-origin': '*',
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'GET,POST,PUT,DELETE,OPTIONS',
          'access-control-allow-headers': 'authorization,content-type',
          'access-control-max-age': '43200',
        });
      }
      const bare = await fetch(`${baseURL}/embeddings`, { method: 'OPTIONS', headers: { origin: 'https://app.example' } });
      expect(bare.status).toBe(204);
      expect(bare.headers.get('access-control-allow-headers')).toBe('*');
    });

    it('puts the allow headers on answers, errors and streams alike, and only when the request has an Origin', async () => {
      const cors = { origin: 'https://app.example' };
      const models = await fetch(`${baseURL}/models`, { headers: { ...cors, authorization: `Bearer ${alice.key}` } });
      expect(models.status).toBe(200);
      expect(models.headers.get('access-control-allow-origin')).toBe('*');
      expect(models.headers.get('access-control-allow-credentials')).toBe('true');

      const refused = await post('/v1/chat/completions', '{', cors);
      expect(refused.status).toBe(400);
      expect(refused.headers.get('access-control-allow-origin')).toBe('*');

      const stream = await post(
        '/v1/chat/completions',
        JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true }),
        cors,
      );
      expect(stream.headers.get('access-control-allow-origin')).toBe('*');
      expect(await stream.text()).toMatch(/\[DONE\]/);

      const speech = await post('/v1/audio/speech', JSON.stringify({ model: 'tts-1', input: 'Hi', voice: 'alloy' }), cors);
      expect(speech.headers.get('access-control-allow-origin')).toBe('*');
      await speech.arrayBuffer();

      const noOrigin = await fetch(`${baseURL}/models`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(noOrigin.headers.get('access-control-allow-origin')).toBeNull();
      // Console routes keep their own policy (none).
      const consoleRoute = await fetch(`${origin}/api/status`, { headers: cors });
      expect(consoleRoute.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
