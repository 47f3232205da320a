import type { UpstreamAdapter } from '#server/upstreams/upstream-adapter';
import { chatInput } from '#server/upstreams/testing/upstream-test-kit';
import type { UpstreamAnswer, UpstreamAnswerBody } from '../../upstream-client/upstream-http-client';
import { checkRefusedStream } from './refused-stream';

function answer(contentType: string, data: string, broken = false): UpstreamAnswer {
  const body = {
    bytes: () => (broken ? Promise.reject(new Error('reset')) : Promise.resolve(Buffer.from(data))),
  } as unknown as UpstreamAnswerBody;
  return { status: 200, contentType, headers: {}, body };
}

const refusing = {
  refusedStream: (_input, response) =>
    Buffer.from(response.body).toString().includes('"Error"')
      ? { ok: false, status: 401, error: { message: 'refused', type: 't', param: '', code: 'AuthFailure' } }
      : null,
} as Pick<UpstreamAdapter, 'refusedStream'> as UpstreamAdapter;

describe('checkRefusedStream', () => {
  const input = chatInput({ isStream: true });

  it('leaves SSE answers and adapters without the hook untouched', async () => {
    const sse = answer('text/event-stream', 'data: {}\n\n');
    expect(await checkRefusedStream(refusing, input, sse)).toBe(sse);
    const json = answer('application/json', '{"Error":{}}');
    expect(await checkRefusedStream({} as UpstreamAdapter, input, json)).toBe(json);
  });

  it('returns the refusal of a JSON error body', async () => {
    expect(await checkRefusedStream(refusing, input, answer('application/json; charset=utf-8', '{"Error":{}}'))).toMatchObject({
      ok: false,
      status: 401,
    });
  });

  it('streams a JSON body that is no refusal from the bytes already read, once', async () => {
    const checked = (await checkRefusedStream(refusing, input, answer('application/json', '{"answer":1}'))) as UpstreamAnswer;
    const chunks: string[] = [];
    for await (const chunk of checked.body) chunks.push(chunk.toString());
    for await (const chunk of checked.body) chunks.push(chunk.toString());
    expect(chunks).toEqual(['{"answer":1}']);
    expect(checked.body.ready()).toBe(true);
  });

  it('reports a body that broke off', async () => {
    expect(await checkRefusedStream(refusing, input, answer('application/json', '', true))).toBe('broken');
  });
});
