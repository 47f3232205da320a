import { findKeyValue, forEachStringValue, lastObjectValue } from './json-scan';

const USAGE = Buffer.from('"usage"');
const CONTENT = Buffer.from('"content"');

function strings(json: string, key = CONTENT): string[] {
  const out: string[] = [];
  const buffer = Buffer.from(json);
  forEachStringValue(buffer, key, 0, buffer.length, (value) => out.push(value));
  return out;
}

describe('json-scan', () => {
  it('finds a key only where it is a key, not inside string values', () => {
    const json = Buffer.from('{"content":"the \\"usage\\": field","note":"usage","usage" : {"prompt_tokens":3}}');
    expect(lastObjectValue(json, USAGE)).toEqual({ prompt_tokens: 3 });
    expect(findKeyValue(Buffer.from('{"a":"usage"}'), USAGE, 0, 13)).toBe(-1);
  });

  it('reads the last usage object and skips null', () => {
    expect(lastObjectValue(Buffer.from('{"usage":null}'), USAGE)).toBeUndefined();
    const json = Buffer.from('{"choices":[{"usage":{"a":1}}],"usage":{"b":"}{","c":[1,{"d":2}]}}');
    expect(lastObjectValue(json, USAGE)).toEqual({ b: '}{', c: [1, { d: 2 }] });
  });

  it('reads string values with escapes, unicode and pretty-printed spacing', () => {
    expect(strings('{"delta":{"content":"Hi"}}')).toEqual(['Hi']);
    expect(strings('{"delta": {"content" : "a\\"b\\\\c\\n\\u4e16"}}')).toEqual(['a"b\\c\n世']);
    expect(strings('{"content":null,"reasoning_content":"r"}')).toEqual([]);
    expect(strings('{"choices":[{"delta":{"content":"x"}},{"delta":{"content":"é"}}]}')).toEqual(['x', 'é']);
  });

  it('stops at a string cut before its closing quote', () => {
    expect(strings('{"content":"unterminated')).toEqual([]);
  });
});
