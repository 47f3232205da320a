import { answerFromBytes, PushedBody } from './call-answer';

describe('answers of an adapter’s own call', () => {
  it('hands a whole answer over as bytes or as one chunk', async () => {
    const answer = answerFromBytes(201, 'application/json', '{"a":1}');
    expect(answer).toMatchObject({ status: 201, contentType: 'application/json', headers: { 'content-type': 'application/json' } });
    expect(answer.body.ready()).toBe(true);
    expect((await answer.body.bytes()).toString()).toBe('{"a":1}');
    const chunks: string[] = [];
    for await (const chunk of answerFromBytes(200, '', new Uint8Array([104, 105])).body) chunks.push(chunk.toString());
    expect(chunks).toEqual(['hi']);
  });

  it('feeds pushed chunks to a reader as they come, then ends', async () => {
    const body = new PushedBody();
    expect(body.ready()).toBe(false);
    const read = (async () => {
      const seen: string[] = [];
      for await (const chunk of body) seen.push(chunk.toString());
      return seen;
    })();
    body.push('a');
    await new Promise((resolve) => setImmediate(resolve));
    body.push(new Uint8Array([98]));
    body.end();
    expect(await read).toEqual(['a', 'b']);
  });

  it('rejects a reader when the producer fails, and stops the producer when the reader stops', async () => {
    const failing = new PushedBody();
    failing.push('x');
    failing.fail(new Error('socket reset'));
    await expect(failing.bytes()).rejects.toThrow('socket reset');

    let stopped = 0;
    const body = new PushedBody(() => stopped++);
    body.push('first');
    for await (const chunk of body) {
      expect(chunk.toString()).toBe('first');
      break;
    }
    expect(stopped).toBe(1);
    body.destroy();
    expect(stopped).toBe(1);
    const ended = new PushedBody(() => stopped++);
    ended.end();
    ended.destroy();
    expect(stopped).toBe(1);
  });
});
