import { findSensitiveWords, SensitiveWordList, sensitiveWordList } from './sensitive-words';

/** Every word of `words` contained in the lower-cased text: the naive answer the matchers must agree with. */
function naive(words: readonly string[], texts: string[]): string[] {
  return words.filter((word) => texts.some((text) => text.toLowerCase().includes(word)));
}

function found(list: SensitiveWordList, ...texts: string[]): string[] {
  let hits: Set<number> | null = null;
  for (const text of texts) hits = list.scan(text, hits);
  return hits ? list.wordsOf(hits) : [];
}

describe('SensitiveWordList', () => {
  it('reads one word a line: blank lines ignored, words trimmed and lower-cased, duplicates dropped, CRLF accepted', () => {
    expect(SensitiveWordList.parse('  Foo \n\n\tBAR\r\nfoo\n   \nbaz qux').words).toEqual(['foo', 'bar', 'baz qux']);
    expect(SensitiveWordList.parse('').size).toBe(0);
    expect(SensitiveWordList.parse('\n \n').size).toBe(0);
  });

  it('matches case-insensitively and gives the distinct words found in list order', () => {
    const list = SensitiveWordList.parse('test_sensitive\nalpha\nbeta');
    expect(found(list, 'say BETA then TEST_Sensitive, Alpha and beta again')).toEqual(['test_sensitive', 'alpha', 'beta']);
    expect(found(list, 'nothing here')).toEqual([]);
    expect(list.scan('nothing here', null)).toBeNull();
    expect(list.scan('', null)).toBeNull();
  });

  it('finds overlapping and nested words with the automaton (lists longer than the direct-scan limit)', () => {
    const filler = Array.from({ length: 40 }, (_, i) => `filler${i}x`);
    const list = SensitiveWordList.parse(['he', 'she', 'his', 'hers', '敏感词', ...filler].join('\n'));
    expect(found(list, 'USHERS')).toEqual(['he', 'she', 'hers']);
    expect(found(list, 'this 含有敏感词 text')).toEqual(['his', '敏感词']);
    expect(found(list, 'filler12X and FILLER3x')).toEqual(['filler3x', 'filler12x']);
    expect(found(list, 'filler')).toEqual([]);
  });

  it('agrees with a plain substring search on random lists and texts, below and above the direct-scan limit', () => {
    let seed = 42;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const word = (length: number) => Array.from({ length }, () => 'abcAB'[Math.floor(random() * 5)]).join('');
    for (const size of [1, 5, 24, 25, 200]) {
      for (let round = 0; round < 20; round++) {
        const words = Array.from({ length: size }, () => word(1 + Math.floor(random() * 5)));
        const list = SensitiveWordList.parse(words.join('\n'));
        const texts = [word(Math.floor(random() * 60)), word(Math.floor(random() * 10))];
        expect(found(list, ...texts)).toEqual(naive(list.words, texts));
      }
    }
  });

  it('compiles a list once per distinct option value', () => {
    const first = sensitiveWordList('a\nb');
    expect(sensitiveWordList('a\nb')).toBe(first);
    const changed = sensitiveWordList('a\nc');
    expect(changed).not.toBe(first);
    expect(changed.words).toEqual(['a', 'c']);
  });
});

describe('findSensitiveWords', () => {
  const list = SensitiveWordList.parse('test_sensitive\nbad word');

  it('checks chat string content and the text parts of array content (new-api skipped arrays)', () => {
    expect(
      findSensitiveWords(
        'chat',
        {
          messages: [
            { role: 'system', content: 'Be kind' },
            { role: 'user', content: 'a TEST_Sensitive b' },
          ],
        },
        list,
      ),
    ).toEqual(['test_sensitive']);
    const parts = {
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://x/test_sensitive.png' } },
            { type: 'text', text: 'some BAD WORD' },
          ],
        },
        { role: 'user', content: 'Test_Sensitive' },
      ],
    };
    expect(findSensitiveWords('chat', parts, list)).toEqual(['test_sensitive', 'bad word']);
    expect(
      findSensitiveWords(
        'chat',
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'test_sensitive' } }] }] },
        list,
      ),
    ).toBeNull();
    expect(
      findSensitiveWords('chat', { messages: [{ role: 'user', content: 'hi' }, null, { role: 'assistant', content: null }] }, list),
    ).toBeNull();
  });

  it('checks completions prompt, embeddings and moderations input (string or strings), images prompt and speech input', () => {
    expect(findSensitiveWords('completions', { prompt: 'x test_sensitive' }, list)).toEqual(['test_sensitive']);
    expect(findSensitiveWords('completions', { prompt: ['fine', 'bad word'] }, list)).toEqual(['bad word']);
    expect(findSensitiveWords('completions', { prompt: [1, 2, 3] }, list)).toBeNull();
    expect(findSensitiveWords('embeddings', { input: ['TEST_SENSITIVE'] }, list)).toEqual(['test_sensitive']);
    expect(findSensitiveWords('moderations', { input: 'bad word' }, list)).toEqual(['bad word']);
    expect(findSensitiveWords('images-generations', { prompt: 'a bad word cat' }, list)).toEqual(['bad word']);
    expect(findSensitiveWords('audio-speech', { input: 'read test_sensitive aloud' }, list)).toEqual(['test_sensitive']);
  });

  it('leaves other modes, other fields and empty lists alone', () => {
    expect(findSensitiveWords('rerank', { query: 'test_sensitive', documents: ['test_sensitive'] }, list)).toBeNull();
    expect(findSensitiveWords('audio-transcriptions', { prompt: 'test_sensitive' }, list)).toBeNull();
    expect(findSensitiveWords('chat', { messages: [{ role: 'user', content: 'hi', name: 'test_sensitive' }] }, list)).toBeNull();
    expect(findSensitiveWords('chat', { messages: [{ role: 'user', content: 'test_sensitive' }] }, SensitiveWordList.parse(''))).toBeNull();
  });
});
