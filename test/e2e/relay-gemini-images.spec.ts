import { GeminiApiFake } from '../fakes/upstreams/gemini-api-fake';
import { ImageHostFake, TINY_PNG } from '../fakes/upstreams/image-host-fake';
import { createTestApp, type TestApp } from '../support/app';
import { admission, chargeCount, chargesOf, createChannel, listen, routable, userWithToken } from './relay-support';
import { type Caller, projected, rootCaller } from './users-support';

jest.setTimeout(90_000);

/**
 * Gemini cannot fetch arbitrary image URLs: the relay fetches every http(s) `image_url` of the messages
 * before the upstream call and sends it as `inlineData`, at most 16 images per message. A failed fetch is a 400
 * relay error that reaches no upstream and charges nothing.
 */
describe('relay: remote images for Gemini channels', () => {
  let target: TestApp;
  let baseURL: string;
  let root: Caller;
  let user: Caller & { key: string; tokenId: number };
  const gemini = new GeminiApiFake();
  const images = new ImageHostFake();

  beforeAll(async () => {
    await Promise.all([gemini.start(), images.start()]);
    // The image host is on loopback, which the relay refuses by default (SSRF): allowed for this file only.
    target = await createTestApp({ env: { RELAY_MEDIA_ALLOW_PRIVATE: 'true' } });
    baseURL = await listen(target);
    root = await rootCaller(target);
    await createChannel(target, root, {
      type: 24,
      name: 'gemini',
      baseUrl: gemini.baseUrl,
      key: 'gemini-key',
      models: ['gemini-2.0-flash'],
    });
    user = await userWithToken(target, 'imagefan', 100_000_000, { unlimited_quota: false, remain_quota: 50_000_000 });
    await routable(target, user.key, baseURL, 'gemini-2.0-flash');
  });

  afterAll(async () => {
    await target?.close();
    await Promise.all([gemini.close(), images.close()]);
  });

  function chat(content: unknown[]): Promise<Response> {
    return fetch(`${baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gemini-2.0-flash', max_tokens: 50, messages: [{ role: 'user', content }] }),
    });
  }

  const image = (url: string) => ({ type: 'image_url', image_url: { url } });

  async function refusedWithoutCharge(content: unknown[], message: RegExp): Promise<void> {
    await projected(target);
    const charges = await chargeCount(target);
    const upstreamCalls = gemini.requests.length;
    const available = await admission(target).available(user.id, user.tokenId);
    const response = await chat(content);
    const body = (await response.json()) as { error: Record<string, unknown> };
    expect({ status: response.status, error: body.error }).toEqual({
      status: 400,
      error: { message: expect.stringMatching(message), type: 'new_api_error', param: '', code: 'fetch_image_failed' },
    });
    expect(String(body.error.message)).toMatch(new RegExp(`\\(request id: ${response.headers.get('x-oneapi-request-id')}\\)$`));
    expect(gemini.requests.length).toBe(upstreamCalls);
    expect(await chargeCount(target)).toBe(charges);
    expect(await admission(target).available(user.id, user.tokenId)).toEqual(available);
  }

  it('sends a fetched image as inlineData with its mime type and bytes, next to the text and data: images, and charges once', async () => {
    const before = gemini.requests.length;
    const hostedBefore = images.requests.length;
    const response = await chat([
      { type: 'text', text: 'What is in these pictures?' },
      image(`${images.baseUrl}/pixel.png`),
      image(`data:image/gif;base64,R0lGODlhAQABAAAAACw=`),
      image(`${images.baseUrl}/pixel.bin`),
    ]);
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { choices: Array<{ message: { content: string } }> };
    expect(answer.choices[0].message.content).toBe(gemini.reply);

    expect(gemini.requests.length).toBe(before + 1);
    const sent = gemini.bodies()[before];
    expect(sent.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is in these pictures?' },
          { inlineData: { mimeType: 'image/png', data: TINY_PNG.toString('base64') } },
          { inlineData: { mimeType: 'image/gif', data: 'R0lGODlhAQABAAAAACw=' } },
          // Served as application/octet-stream: the type comes from the bytes.
          { inlineData: { mimeType: 'image/png', data: TINY_PNG.toString('base64') } },
        ],
      },
    ]);
    expect(
      images.requests
        .slice(hostedBefore)
        .map((request) => request.url)
        .sort(),
    ).toEqual(['/pixel.bin', '/pixel.png']);
    const charges = await chargesOf(target, response.headers.get('x-oneapi-request-id')!);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({
      modelName: 'gemini-2.0-flash',
      promptTokens: gemini.promptTokens,
      completionTokens: gemini.candidatesTokens,
    });
  });

  it('fetches an image used twice once, and sends at most 16 images per message', async () => {
    const before = gemini.requests.length;
    const hostedBefore = images.requests.length;
    const response = await chat([
      { type: 'text', text: 'count' },
      ...Array.from({ length: 18 }, () => image(`${images.baseUrl}/pixel.png`)),
    ]);
    expect(response.status).toBe(200);
    await response.json();
    const parts = gemini.bodies()[before].contents[0].parts as Array<Record<string, unknown>>;
    expect(parts).toHaveLength(17);
    expect(parts.filter((part) => 'inlineData' in part)).toHaveLength(16);
    expect(parts.some((part) => 'fileData' in part)).toBe(false);
    expect(images.requests.length - hostedBefore).toBe(1);
  });

  it('answers 400 for an image that is not found, reaching no upstream and charging nothing', async () => {
    await refusedWithoutCharge(
      [{ type: 'text', text: 'look' }, image(`${images.baseUrl}/missing.png`)],
      /^failed to fetch image http:\/\/127\.0\.0\.1:\d+\/missing\.png: HTTP 404 \(request id: /,
    );
  });

  it('answers 400 when any one of several images fails, and for a URL that is not an image', async () => {
    await refusedWithoutCharge(
      [image(`${images.baseUrl}/pixel.png`), image(`${images.baseUrl}/gone.png`)],
      /^failed to fetch image .*\/gone\.png: HTTP 404/,
    );
    await refusedWithoutCharge(
      [image(`${images.baseUrl}/note.txt`)],
      /^failed to fetch image .*\/note\.txt: the content type text\/plain is not an image/,
    );
  });

  it('answers 400 for an image over the 20 MB cap, and for a host that cannot be reached', async () => {
    await refusedWithoutCharge([image(`${images.baseUrl}/huge.png`)], /^image .*\/huge\.png is too large: more than 20971520 bytes/);
    await refusedWithoutCharge([image('http://127.0.0.1:1/nothing.png')], /^failed to fetch image http:\/\/127\.0\.0\.1:1\/nothing\.png: /);
  });
});
