import { sortedJson } from './sorted-json';

describe('sortedJson', () => {
  it('sorts keys at every level, inside arrays too, and keeps array order', () => {
    expect(sortedJson({ b: 1, a: { d: [{ z: 1, y: 2 }, 3], c: null } })).toBe('{"a":{"c":null,"d":[{"y":2,"z":1},3]},"b":1}');
  });

  it('writes scalars as JSON.stringify does', () => {
    expect(sortedJson('x')).toBe('"x"');
    expect(sortedJson(null)).toBe('null');
    expect(sortedJson([2, 1])).toBe('[2,1]');
  });
});
