import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RelayError } from '../relay-error';
import { isInternalAddress, fetchRemoteMedia, limitImagesPerMessage, remoteImageUrls } from './remote-media';

const image = (url: string) => ({ type: 'image_url', image_url: { url } });

describe('remote media for needsRemoteMedia adapters', () => {
  it('lists the distinct http(s) image URLs of the messages, leaving data: and gs:// URLs alone', () => {
    const body = {
      messages: [
        { role: 'system', content: 'plain' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            image('https://a.example/1.png'),
            { type: 'image_url', image_url: 'http://b.example/2.jpg' },
          ],
        },
        { role: 'user', content: [image('https://a.example/1.png'), image('data:image/png;base64,AAAA'), image('gs://bucket/x.png')] },
      ],
    };
    expect(remoteImageUrls(body)).toEqual(['https://a.example/1.png', 'http://b.example/2.jpg']);
  });

  it('keeps at most 16 image parts per message, every text part, and never mutates the client body', () => {
    const content = [
      { type: 'text', text: 'a' },
      ...Array.from({ length: 20 }, (_, index) => image(`https://x.example/${index}.png`)),
      { type: 'text', text: 'b' },
    ];
    const body = {
      model: 'm',
      messages: [
        { role: 'user', content },
        { role: 'user', content: [image('https://y.example/0.png')] },
      ],
    };
    const limited = limitImagesPerMessage(body);
    const kept = (limited.messages as Array<{ content: Array<{ type: string }> }>)[0].content;
    expect(kept.filter((part) => part.type === 'image_url')).toHaveLength(16);
    expect(kept.filter((part) => part.type === 'text')).toHaveLength(2);
    expect(remoteImageUrls(limited)).toHaveLength(17);
    expect(content).toHaveLength(22);
    const small = { messages: [{ role: 'user', content: [image('https://x.example/a.png')] }] };
    expect(limitImagesPerMessage(small)).toBe(small);
  });

  describe('against a slow host', () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        setTimeout(() => response.writeHead(200, { 'content-type': 'image/png' }).end('late'), 2_000).unref();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('refuses internal addresses unless allowed: a literal loopback IP and a name that resolves to one (SSRF)', async () => {
      for (const url of [
        `${base}/slow.png`,
        `${base.replace('127.0.0.1', 'localhost')}/slow.png`,
        'http://[::1]:9/x.png',
        'http://169.254.169.254/latest/meta-data',
      ]) {
        const error = await fetchRemoteMedia({ messages: [{ role: 'user', content: [image(url)] }] }, { timeoutMs: 2_000 }).catch(
          (caught: unknown) => caught,
        );
        expect(error).toMatchObject({ status: 400, code: 'fetch_image_failed', message: expect.stringMatching(/internal address/) });
      }
    });

    it('gives up after the timeout with a 400 relay error', async () => {
      const started = Date.now();
      const error = await fetchRemoteMedia(
        { messages: [{ role: 'user', content: [image(`${base}/slow.png`)] }] },
        { timeoutMs: 150, allowPrivate: true },
      ).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(RelayError);
      expect(error).toMatchObject({
        status: 400,
        code: 'fetch_image_failed',
        shape: 'relay',
        message: expect.stringMatching(/^failed to fetch image .*\/slow\.png: timed out$/),
      });
      expect(Date.now() - started).toBeLessThan(1_500);
    });
  });

  it('fetches nothing when there is no remote image', async () => {
    expect((await fetchRemoteMedia({ messages: [{ role: 'user', content: 'hi' }] })).size).toBe(0);
  });
});

describe('isInternalAddress', () => {
  it('knows loopback, private, link-local, CGNAT, unique-local and mapped addresses from public ones', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isInternalAddress(address)).toBe(true);
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8']) expect(isInternalAddress(address)).toBe(false);
  });
});
