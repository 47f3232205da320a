import { bytesEqual, findKeyValue, forEachKey, forEachStringAt, lastObjectValue, stringValueAt } from './json-scan';

const USAGE = Buffer.from('"usage"');
const CONTENT = Buffer.from('"content"');

/** The string values of `key` in order, as the stream transformer reads them (a string cut short ends the list). */
function strings(json: string, key = CONTENT): string[] {
  const buffer = Buffer.from(json);
  const name = key.subarray(1, key.length - 1);
  const positions: number[] = [];
  forEachKey(buffer, 0, buffer.length, (keyStart, keyEnd, valueAt) => {
    if (bytesEqual(buffer, keyStart, keyEnd - keyStart, name)) positions.push(valueAt);
  });
  const out: string[] = [];
  forEachStringAt(buffer, positions, buffer.length, (value) => out.push(value));
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

  it('walks every key once, at any depth, with the first byte of its value', () => {
    const json = '{"id":"c1","choices":[{"delta":{"content" : "a \\"b\\": c"},"finish_reason":null}],"usage":{"total_tokens":3}}';
    const buffer = Buffer.from(json);
    const keys: Array<[string, string]> = [];
    forEachKey(buffer, 0, buffer.length, (keyStart, keyEnd, valueAt) =>
      keys.push([buffer.toString('utf8', keyStart, keyEnd), json[valueAt]]),
    );
    expect(keys).toEqual([
      ['id', '"'],
      ['choices', '['],
      ['delta', '{'],
      ['content', '"'],
      ['finish_reason', 'n'],
      ['usage', '{'],
      ['total_tokens', '3'],
    ]);
    // The escaped quotes inside the content value are not keys; the value decodes with its escapes.
    const content = json.indexOf('"a ');
    expect(stringValueAt(buffer, content, buffer.length)).toBe('a "b": c');
    expect(stringValueAt(buffer, json.indexOf('null'), buffer.length)).toBeNull();
    expect(bytesEqual(buffer, json.indexOf('usage'), 5, Buffer.from('usage'))).toBe(true);
    expect(bytesEqual(buffer, json.indexOf('usage'), 5, Buffer.from('usages'))).toBe(false);
  });

  it('stops the key walk at a string that does not close, and never reads past end', () => {
    const buffer = Buffer.from('{"a":1,"b":"cut here,"c":2}');
    const seen: string[] = [];
    forEachKey(buffer, 0, buffer.indexOf('here'), (keyStart, keyEnd) => seen.push(buffer.toString('utf8', keyStart, keyEnd)));
    expect(seen).toEqual(['a', 'b']);
    const event = Buffer.from('{"a":1}\n{"b":2}');
    const first: string[] = [];
    forEachKey(event, 0, event.indexOf('\n'), (keyStart, keyEnd) => first.push(event.toString('utf8', keyStart, keyEnd)));
    expect(first).toEqual(['a']);
    // A key whose colon or value lies past end is not reported.
    const cut = Buffer.from('{"a": 1}');
    const none: string[] = [];
    forEachKey(cut, 0, cut.indexOf(':'), (keyStart, keyEnd) => none.push(cut.toString('utf8', keyStart, keyEnd)));
    forEachKey(cut, 0, cut.indexOf('1'), (keyStart, keyEnd) => none.push(cut.toString('utf8', keyStart, keyEnd)));
    expect(none).toEqual([]);
  });

  it('looks only between start and end, forwards and backwards', () => {
    const buffer = Buffer.from('{"usage":{"a":1}}\n{"content":"x"}\n{"usage":{"b":2}}');
    const second = buffer.indexOf('{"content"');
    const secondEnd = buffer.indexOf('\n', second);
    expect(findKeyValue(buffer, USAGE, second, secondEnd)).toBe(-1);
    expect(findKeyValue(buffer, USAGE, second, secondEnd, true)).toBe(-1);
    expect(lastObjectValue(buffer, USAGE, second, secondEnd)).toBeUndefined();
    expect(lastObjectValue(buffer, USAGE, 0, second)).toEqual({ a: 1 });
    expect(lastObjectValue(buffer, USAGE)).toEqual({ b: 2 });
    expect(buffer[findKeyValue(buffer, CONTENT, second, secondEnd)]).toBe(34);
    // A key cut by `end` is not a key.
    expect(findKeyValue(buffer, USAGE, 0, 5)).toBe(-1);
  });

  it('searches each event of a many-event chunk within the event (linear, not quadratic, in the chunk)', () => {
    const event = '{"id":"c1","choices":[{"delta":{"content":"word"},"finish_reason":null}],"usage":null}';
    const events = Array.from({ length: 2000 }, () => event);
    const buffer = Buffer.from(events.join('\n'));
    const offered = bytesOfferedToSearch(() => {
      let start = 0;
      for (const line of events) {
        const end = start + line.length;
        for (const key of [USAGE, CONTENT, Buffer.from('"error"'), Buffer.from('"tool_calls"')]) findKeyValue(buffer, key, start, end);
        start = end + 1;
      }
    });
    // Four keys per event over its own bytes: about 4x the chunk. Searching to the chunk's end each time was ~4,000x.
    expect(offered).toBeLessThan(8 * buffer.length);
  });
});

/** Bytes that Buffer#indexOf / #lastIndexOf calls were given to search while `run` ran. */
function bytesOfferedToSearch(run: () => void): number {
  type Search = (this: Buffer, ...args: unknown[]) => number;
  const proto = Buffer.prototype as unknown as { indexOf: Search; lastIndexOf: Search };
  const { indexOf, lastIndexOf } = proto;
  let offered = 0;
  proto.indexOf = function (this: Buffer, ...args: unknown[]) {
    const from = typeof args[1] === 'number' ? args[1] : 0;
    offered += Math.max(0, this.length - (from < 0 ? this.length + from : from));
    return indexOf.apply(this, args);
  };
  proto.lastIndexOf = function (this: Buffer, ...args: unknown[]) {
    const from = typeof args[1] === 'number' ? args[1] : this.length;
    offered += Math.min(this.length, from + 1);
    return lastIndexOf.apply(this, args);
  };
  try {
    run();
  } finally {
    proto.indexOf = indexOf;
    proto.lastIndexOf = lastIndexOf;
  }
  return offered;
}
