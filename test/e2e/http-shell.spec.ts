import { createTestApp, type TestApp } from '../support/app';

describe('HTTP shell', () => {
  let target: TestApp;
  beforeAll(async () => {
    target = await createTestApp();
  });
  afterAll(async () => {
    await target.close();
  });

  it('answers an unknown API path with the reference 404 shape', async () => {
    const response = await target.http().get('/api/does-not-exist?x=1');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      error: { message: 'Invalid URL (GET /api/does-not-exist)', type: 'invalid_request_error', param: '', code: '' },
    });
  });

  it('echoes a request id on every answer', async () => {
    const response = await target.http().get('/api/nothing').set('X-Oneapi-Request-Id', 'req-123');
    expect(response.headers['x-oneapi-request-id']).toBe('req-123');
  });
});
