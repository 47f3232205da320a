import { mapUpstreamError } from './map-upstream-error';

describe('mapUpstreamError', () => {
  it('keeps an OpenAI-shaped error verbatim with the upstream status', () => {
    const body =
      '{"error":{"message":"Incorrect API key provided: sk-abc.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}';
    expect(mapUpstreamError(401, Buffer.from(body))).toEqual({
      ok: false,
      status: 401,
      error: { message: 'Incorrect API key provided: sk-abc.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    });
  });

  it('keeps Claude errors (error.type) and names Gemini errors by their status', () => {
    const claude = '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}';
    expect(mapUpstreamError(529, claude).error).toEqual({ message: 'Overloaded', type: 'overloaded_error', param: null, code: null });
    const gemini = '{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT"}}';
    expect(mapUpstreamError(400, gemini).error).toEqual({
      message: 'API key not valid.',
      type: 'INVALID_ARGUMENT',
      param: null,
      code: 400,
    });
  });

  it.each([
    ['{"message":"m1"}', 'm1'],
    ['{"msg":"m2"}', 'm2'],
    ['{"err":"m3"}', 'm3'],
    ['{"error_msg":"m4","error_code":110}', 'm4'],
    ['{"header":{"code":10013,"message":"m5"}}', 'm5'],
    ['{"response":{"error":{"code":"AuthFailure","message":"m6"}}}', 'm6'],
    ['{"message":"","msg":"m7"}', 'm7'],
    ['{"error":"plain string error"}', 'plain string error'],
  ])('reads the message of %s', (body, message) => {
    expect(mapUpstreamError(500, body)).toEqual({
      ok: false,
      status: 500,
      error: { message, type: 'upstream_error', param: '500', code: 'bad_response_status_code' },
    });
  });

  it('falls back to the status for HTML or empty bodies', () => {
    expect(mapUpstreamError(502, '<html>Bad Gateway</html>').error.message).toBe('bad response status code 502');
    expect(mapUpstreamError(503, new Uint8Array()).error).toEqual({
      message: 'bad response status code 503',
      type: 'upstream_error',
      param: '503',
      code: 'bad_response_status_code',
    });
  });
});
