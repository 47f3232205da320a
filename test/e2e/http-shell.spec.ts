import { createTestApp, type TestApp } from '../support/app';

describe('HTTP shell', () => {
  let target: TestApp;
  beforeAll(async () => {
    target = await createTestApp();
  });
  afterAll(async () => {
    await target.close();
  });

  it('answers an unknown API path with the new-api 404 shape', async () => {
    const response = await target.http().get('/api/does-not-exist?x=1');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: { message: 'Invalid URL (GET /api/does-not-exist)', type: 'invalid_request_error', param: '', code: '' },
    });
  });

  it('answers its own request id on every answer, never one the client chose', async () => {
    // Relay charges derive their event id from the request id: a client-chosen id could replay a charge away.
    const first = await target.http().get('/api/nothing').set('X-Oneapi-Request-Id', 'req-123');
    const second = await target.http().get('/api/nothing').set('X-Oneapi-Request-Id', 'req-123');
    expect(first.headers['x-oneapi-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers['x-oneapi-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.headers['x-oneapi-request-id']).not.toBe(second.headers['x-oneapi-request-id']);
  });
});
