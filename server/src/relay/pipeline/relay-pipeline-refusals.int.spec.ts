import { setOptions } from '#test/e2e/users-support';
import { json, pipelineHarness } from './relay-pipeline.int-harness';

jest.setTimeout(30_000);

/** Requests refused before a channel is called: bad input, sensitive words, and which header carries the key. */
describe('RelayPipelineService: authenticate and parse (real ledger and Redis, in-test auth and routing)', () => {
  const pipeline = pipelineHarness();
  const { primary, backup, outcomes, chat, charges, available } = pipeline;

  it('refuses bad input in the documented shapes and reserves nothing', async () => {
    const before = await available();
    const malformed = await fetch(`${pipeline.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-good' },
      body: '{"model":',
    });
    expect(malformed.status).toBe(400);
    expect(Object.keys((await json(malformed)).error)).toEqual(['message', 'type']);
    const noMessages = await chat({ model: 'gpt-3.5-turbo' });
    expect((await json(noMessages)).error).toMatchObject({
      code: 'invalid_text_request',
      message: expect.stringMatching(/^field messages is required/),
    });
    const noChannel = await chat({ model: 'nope', messages: [{ role: 'user', content: 'x' }] });
    expect(noChannel.status).toBe(503);
    expect((await json(noChannel)).error.message).toMatch(/^当前分组 default 下对于模型 nope 无可用渠道/);
    const badToken = await chat({ model: 'gpt-3.5-turbo', messages: [] }, 'sk-bad');
    expect(badToken.status).toBe(401);
    expect(await available()).toBe(before);
  });

  describe('sensitive words, checked before channel selection and reservation', () => {
    const refusedCleanly = async (
      response: Response,
      code: string,
      message: string,
      upstreamCallsBefore: number,
      outcomesBefore: number,
      availableBefore: number,
    ) => {
      expect(response.status).toBe(400);
      expect((await json(response)).error).toEqual({
        message: expect.stringMatching(new RegExp(`^${message} \\(request id: `)),
        type: 'new_api_error',
        param: '',
        code,
      });
      expect(primary.requests.length + backup.requests.length).toBe(upstreamCallsBefore);
      expect(outcomes).toHaveLength(outcomesBefore);
      expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
      expect(await available()).toBe(availableBefore);
    };

    it('refuses a chat message with TEST_Sensitive (string content) with 400 sensitive_words_detected: no upstream call, no reservation, no QuotaConsumed', async () => {
      const calls = primary.requests.length + backup.requests.length;
      const reported = outcomes.length;
      const before = await available();
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'please say TEST_Sensitive twice' }] });
      await refusedCleanly(response, 'sensitive_words_detected', 'sensitive words: test_sensitive', calls, reported, before);
    });

    it('refuses the word inside a text part of array content (new-api never checked arrays)', async () => {
      const calls = primary.requests.length + backup.requests.length;
      const reported = outcomes.length;
      const before = await available();
      const content = [
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        { type: 'text', text: 'what about test_SENSITIVE?' },
      ];
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content }] });
      await refusedCleanly(response, 'sensitive_words_detected', 'sensitive words: test_sensitive', calls, reported, before);
    });

    it('lists every word found in list order, answers images with invalid_image_request and speech with sensitive_words_detected', async () => {
      await setOptions(pipeline.target, { SensitiveWords: 'test_sensitive\nForbidden Fruit\n\n  apple  ' });
      try {
        const calls = primary.requests.length + backup.requests.length;
        const reported = outcomes.length;
        const before = await available();
        const both = await chat({
          model: 'gpt-3.5-turbo',
          messages: [
            { role: 'system', content: 'An APPLE' },
            { role: 'user', content: 'a forbidden fruit' },
          ],
        });
        await refusedCleanly(both, 'sensitive_words_detected', 'sensitive words: forbidden fruit,apple', calls, reported, before);
        const post = (path: string, body: Record<string, unknown>) =>
          fetch(`${pipeline.url}${path}`, {
            method: 'POST',
            headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
        const image = await post('/v1/images/generations', { model: 'dall-e-3', prompt: 'an apple' });
        await refusedCleanly(image, 'invalid_image_request', 'sensitive words: apple', calls, reported, before);
        const speech = await post('/v1/audio/speech', { model: 'tts-1', input: 'Test_Sensitive', voice: 'alloy' });
        await refusedCleanly(speech, 'sensitive_words_detected', 'sensitive words: test_sensitive', calls, reported, before);
      } finally {
        await setOptions(pipeline.target, { SensitiveWords: 'test_sensitive' });
      }
    });

    it('lets the same request through when CheckSensitiveEnabled is false (or CheckSensitiveOnPromptEnabled is)', async () => {
      for (const option of ['CheckSensitiveEnabled', 'CheckSensitiveOnPromptEnabled']) {
        await setOptions(pipeline.target, { [option]: 'false' });
        try {
          const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'please say TEST_Sensitive twice' }] });
          expect(response.status).toBe(200);
          expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(1);
        } finally {
          await setOptions(pipeline.target, { [option]: 'true' });
        }
      }
    });
  });

  it('authenticates with the mj-api-secret header when Authorization is empty, absent or midjourney-proxy', async () => {
    const send = (headers: Record<string, string>) =>
      fetch(`${pipeline.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await send({ authorization: '', 'mj-api-secret': 'sk-good' })).status).toBe(200);
    expect((await send({ 'mj-api-secret': 'Bearer sk-good' })).status).toBe(200);
    expect((await send({ authorization: 'Bearer midjourney-proxy', 'mj-api-secret': 'sk-good' })).status).toBe(200);
    // A key in Authorization wins; no key anywhere is 未提供令牌.
    expect((await send({ authorization: 'Bearer sk-bad', 'mj-api-secret': 'sk-good' })).status).toBe(401);
    const none = await send({ authorization: 'midjourney-proxy' });
    expect(none.status).toBe(401);
    expect((await json(none)).error.message).toMatch(/^未提供令牌/);
  });
});
