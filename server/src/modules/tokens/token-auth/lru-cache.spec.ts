import { LruCache } from './lru-cache';

describe('LruCache', () => {
  it('evicts the least recently used entry beyond its size', () => {
    const cache = new LruCache<string, number>(2, 1000);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('keeps the exact recency order when the most recent entry is hit again and again', () => {
    const cache = new LruCache<string, number>(2, 1000);
    cache.set('a', 1);
    cache.set('b', 2);
    expect(cache.get('b')).toBe(2); // already the most recent
    expect(cache.get('b')).toBe(2);
    expect(cache.get('a')).toBe(1); // a moves past b
    expect(cache.get('a')).toBe(1);
    cache.set('c', 3);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    cache.delete('a'); // the most recent goes: the next hit on c must still make c the most recent
    cache.set('d', 4);
    expect(cache.get('c')).toBe(3);
    cache.set('e', 5);
    expect(cache.get('d')).toBeUndefined();
    expect(cache.get('c')).toBe(3);
    expect(cache.get('e')).toBe(5);
  });

  it('forgets entries after their time to live', () => {
    let now = 0;
    const cache = new LruCache<string, number>(10, 100, () => now);
    cache.set('a', 1);
    now = 99;
    expect(cache.get('a')).toBe(1);
    now = 100;
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('deletes by key, by predicate and all at once', () => {
    const cache = new LruCache<string, { id: number }>(10, 1000);
    cache.set('x', { id: 1 });
    cache.set('y', { id: 2 });
    cache.set('z', { id: 1 });
    expect(cache.deleteWhere((value) => value.id === 1)).toBe(2);
    expect(cache.get('y')).toEqual({ id: 2 });
    cache.delete('y');
    expect(cache.get('y')).toBeUndefined();
    cache.set('w', { id: 3 });
    cache.clear();
    expect(cache.size).toBe(0);
  });
});
