import { type BlockStore, type QuotaBlock, QuotaBlocks } from './quota-blocks';

/** A Redis stand-in with one balance: grows succeed while `available` allows, shrinks give back. */
class FakeStore implements BlockStore {
  available = 10_000;
  held = new Map<string, number>();
  leases = new Set<string>();
  grows: number[] = [];
  pendingGrows: Array<() => void> = [];
  /** When set, grows wait until released (to test drains racing a grow). */
  holdGrows = false;

  grow(block: QuotaBlock, extra: number) {
    this.grows.push(extra);
    const run = () => {
      if (this.available < extra) return { ok: false, userAvailable: this.available, tokenAvailable: null };
      this.available -= extra;
      this.held.set(block.id, (this.held.get(block.id) ?? 0) + extra);
      return { ok: true, userAvailable: this.available, tokenAvailable: null };
    };
    if (!this.holdGrows) return Promise.resolve(run());
    return new Promise<ReturnType<typeof run>>((resolve) => this.pendingGrows.push(() => resolve(run())));
  }

  async shrink(block: QuotaBlock, amount: number) {
    const left = (this.held.get(block.id) ?? 0) - amount;
    this.available += amount;
    if (left > 0) this.held.set(block.id, left);
    else this.held.delete(block.id);
  }

  hold(block: QuotaBlock) {
    this.leases.add(block.id);
  }

  unhold(block: QuotaBlock) {
    this.leases.delete(block.id);
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('QuotaBlocks', () => {
  let store: FakeStore;
  let now: number;
  let blocks: QuotaBlocks;

  beforeEach(() => {
    store = new FakeStore();
    now = 0;
    blocks = new QuotaBlocks(
      store,
      () => '0000abcd',
      { shareOfAvailable: 1 / 8, minRequests: 8, maxRequests: 256, idleMs: 1000 },
      () => now,
    );
  });

  it('makes a block only when the balance is large against the request, sized to an eighth of it at most', async () => {
    blocks.consider(1, null, 100, 5_000, null); // 5,000 / 8 = 625 < 8 × 100: no block
    expect(blocks.blocks).toHaveLength(0);
    blocks.consider(1, null, 10, 10_000, null); // min(2,560, 1,250)
    await flush();
    expect(blocks.blocks).toHaveLength(1);
    expect(blocks.blocks[0]).toMatchObject({ size: 1_250, used: 0, target: 1_250 });
    expect(store.leases.has(blocks.blocks[0].id)).toBe(true);
  });

  it('admits in memory while the block has room, and never more than its size', async () => {
    store.available = 100_000;
    blocks.consider(1, null, 10, 100_000, null);
    await flush();
    const block = blocks.blocks[0];
    let admitted = 0;
    for (let i = 0; i < 1_000; i++) {
      const attempt = blocks.tryHold(`r${i}`, 1, null, 10);
      if (!attempt.hold) break;
      admitted++;
      expect(block.used).toBeLessThanOrEqual(block.size);
    }
    // Grows happen in the background: without letting them land, the first size bounds what was admitted.
    expect(admitted).toBe(256);
  });

  it('a hold becomes the charge, and the charge leaves the block (size and use) when shipped', async () => {
    blocks.consider(1, null, 10, 10_000, null);
    await flush();
    const block = blocks.blocks[0];
    const size = block.size;
    expect(blocks.tryHold('a', 1, null, 10).hold).not.toBeNull();
    blocks.charged('a', 7);
    expect(block.used).toBe(7);
    blocks.shipped(block.id, 7);
    expect(block).toMatchObject({ used: 0, size: size - 7 });
    expect(blocks.releaseHold('a')).toBe(false); // nothing held any more
  });

  it('drains on a miss: the free part goes back before the caller reserves in Redis', async () => {
    blocks.consider(1, null, 100, 10_000, null);
    await flush();
    const block = blocks.blocks[0];
    expect(block.size).toBe(1_250);
    const held = Array.from({ length: 12 }, (_, i) => blocks.tryHold(`h${i}`, 1, null, 100).hold);
    expect(held.every(Boolean)).toBe(true);
    await flush(); // a grow was started below half the target; let it land
    const miss = blocks.tryHold('big', 1, null, 5_000);
    expect(miss.hold).toBeNull();
    await miss.wait;
    expect(block.size).toBe(block.used); // keeps only what its holds use
    expect(store.held.get(block.id)).toBe(1_200); // and Redis holds exactly that
    expect(store.available).toBe(10_000 - 1_200);
    expect(blocks.tryHold('next', 1, null, 1).hold).toBeNull(); // no active block any more
    for (let i = 0; i < 12; i++) blocks.releaseHold(`h${i}`);
    expect(blocks.blocks).toHaveLength(0);
    expect(store.held.size).toBe(0);
    expect(store.leases.size).toBe(0);
  });

  it('a drain racing a grow gives everything back once the grow landed', async () => {
    blocks.consider(1, null, 10, 10_000, null);
    await flush();
    store.holdGrows = true;
    const block = blocks.blocks[0];
    for (let i = 0; i < 70; i++) blocks.tryHold(`h${i}`, 1, null, 10); // below half: a grow starts and waits
    expect(block.growing).toBe(true);
    const miss = blocks.tryHold('big', 1, null, 10_000);
    let issued = false;
    void miss.wait!.then(() => (issued = true));
    await flush();
    expect(issued).toBe(false); // waits for the grow
    store.pendingGrows.shift()!();
    await miss.wait;
    expect(block.size).toBe(block.used);
    expect(store.held.get(block.id)).toBe(block.used);
  });

  it('gives back everything it holds for a user when a request was refused', async () => {
    blocks.consider(1, null, 10, 10_000, null);
    await flush();
    const before = store.available;
    expect(await blocks.giveBackFor(1, null)).toBe(true);
    expect(store.available).toBe(before + 1_250);
    expect(await blocks.giveBackFor(1, null)).toBe(false);
  });

  it('drains idle blocks', async () => {
    blocks.consider(1, null, 10, 10_000, null);
    await flush();
    now = 500;
    blocks.drainIdle();
    expect(blocks.blocks).toHaveLength(1);
    now = 1_500;
    blocks.drainIdle();
    await flush();
    expect(blocks.blocks).toHaveLength(0);
    expect(store.available).toBe(10_000);
  });
});
