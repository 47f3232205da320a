/**
 * A small bounded map with a time to live, least recently used entries evicted first (a Map keeps insertion
 * order: a hit is moved to the end). Enough for the relay's token and user caches; no dependency needed.
 *
 * A hit on the entry that is already the most recent moves nothing. That is the relay's common case (one key used
 * request after request), and moving it there cost a Map shrink and grow per lookup: deleting the only entry of a
 * small Map reallocates its table, and setting it again reallocates it back (docs/benchmark.md, 2026-11-25).
 */
export class LruCache<K, V> {
  private readonly entries = new Map<K, { value: V; expiresAt: number }>();
  /** The key last set or moved to the end (meaningful only while `hasNewest`). */
  private newest: K | undefined = undefined;
  private hasNewest = false;

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.delete(key);
      return undefined;
    }
    if (!this.hasNewest || this.newest !== key) {
      this.entries.delete(key);
      this.entries.set(key, entry);
      this.newest = key;
      this.hasNewest = true;
    }
    return entry.value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt: this.now() + this.ttlMs });
    this.newest = key;
    this.hasNewest = true;
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as K;
      this.delete(oldest);
    }
  }

  delete(key: K): void {
    this.entries.delete(key);
    if (this.hasNewest && this.newest === key) {
      this.newest = undefined;
      this.hasNewest = false;
    }
  }

  /** Removes every entry whose value matches (invalidation by a field other than the key). */
  deleteWhere(predicate: (value: V, key: K) => boolean): number {
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (predicate(entry.value, key)) {
        this.delete(key);
        removed++;
      }
    }
    return removed;
  }

  clear(): void {
    this.entries.clear();
    this.newest = undefined;
    this.hasNewest = false;
  }
}
