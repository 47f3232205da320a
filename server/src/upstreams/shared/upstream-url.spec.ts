import { splitBaseUrl, upstreamTarget, withQuery } from './upstream-url';

describe('splitBaseUrl', () => {
  it.each([
    ['https://api.openai.com', 'https://api.openai.com', ''],
    ['https://api.openai.com/', 'https://api.openai.com', ''],
    ['http://127.0.0.1:8080/proxy/openai//', 'http://127.0.0.1:8080', '/proxy/openai'],
    ['https://gateway.ai.cloudflare.com/v1/acct/gw/openai', 'https://gateway.ai.cloudflare.com', '/v1/acct/gw/openai'],
  ])('%s', (input, origin, prefix) => {
    expect(splitBaseUrl(input)).toEqual({ origin, prefix });
  });
});

describe('upstreamTarget', () => {
  it('keeps the base prefix and the client query', () => {
    expect(upstreamTarget(splitBaseUrl('http://h:1/p'), withQuery('/v1/chat/completions', 'a=1'))).toEqual({
      origin: 'http://h:1',
      path: '/p/v1/chat/completions?a=1',
      url: 'http://h:1/p/v1/chat/completions?a=1',
    });
    expect(withQuery('/x', '')).toBe('/x');
  });
});
