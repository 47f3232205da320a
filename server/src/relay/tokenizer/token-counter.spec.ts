import { countChatPromptTokens, countInputTokens, countTextTokens, encodingFor } from './token-counter';

describe('local token counting (tiktoken-compatible, as new-api counts)', () => {
  it('picks o200k for gpt-4o models and cl100k otherwise', () => {
    expect(encodingFor('gpt-4o-mini')).toBe('o200k_base');
    expect(encodingFor('gpt-3.5-turbo')).toBe('cl100k_base');
    expect(encodingFor('some-custom-model')).toBe('cl100k_base');
  });

  it('counts text like tiktoken', () => {
    // Known cl100k counts: "hello world" is 2 tokens, "Hello, world!" is 4.
    expect(countTextTokens('hello world', 'gpt-3.5-turbo')).toBe(2);
    expect(countTextTokens('Hello, world!', 'gpt-4')).toBe(4);
    expect(countTextTokens('', 'gpt-4')).toBe(0);
  });

  it('counts chat messages as 3 + role + content (+ name) per message, plus 3', () => {
    const body = { messages: [{ role: 'user', content: 'hello world' }] };
    // 3 + "user"(1) + "hello world"(2) + 3
    expect(countChatPromptTokens(body, 'gpt-3.5-turbo')).toBe(9);
    const named = { messages: [{ role: 'user', content: 'hello world', name: 'bob' }] };
    expect(countChatPromptTokens(named, 'gpt-3.5-turbo')).toBe(9 + 1 + countTextTokens('bob', 'gpt-3.5-turbo'));
    const image = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'hello world' },
            { type: 'image_url', image_url: { url: 'x', detail: 'low' } },
          ],
        },
      ],
    };
    expect(countChatPromptTokens(image, 'gpt-3.5-turbo')).toBe(9 + 85);
  });

  it('counts every tool (new-api counted only the last)', () => {
    const tool = (name: string) => ({ type: 'function', function: { name, description: 'd', parameters: { type: 'object' } } });
    const base = { messages: [{ role: 'user', content: 'hi' }] };
    const one = countChatPromptTokens({ ...base, tools: [tool('a')] }, 'gpt-4');
    const two = countChatPromptTokens({ ...base, tools: [tool('a'), tool('b')] }, 'gpt-4');
    expect(one).toBeGreaterThan(countChatPromptTokens(base, 'gpt-4') + 8);
    expect(two).toBeGreaterThan(one);
  });

  it('counts string and array inputs', () => {
    expect(countInputTokens('hello world', 'text-embedding-3-small')).toBe(2);
    expect(countInputTokens(['hello world', 'hello world'], 'text-embedding-3-small')).toBe(4);
    expect(countInputTokens([1, 2, 3], 'text-embedding-3-small')).toBe(3);
  });
});
