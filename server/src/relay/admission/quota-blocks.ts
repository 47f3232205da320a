/**
 * Quota blocks: admission without a Redis round trip per request.
 *
 * A block is one Redis reservation (made and grown with the same atomic availability check as a request's own, see
 * GROW in quota-scripts.ts) that this process admits many requests from, in memory. Because the block's amount is
 * reserved in Redis before any request is admitted from it, and the process never lets the requests it holds from a
 * block exceed that amount, concurrent requests (in this process or any other) still can never reserve more than
 * the user and the token have: the block only moves the per-request bookkeeping from Redis into the process.
 *
 * Per block: `size` is what Redis holds under the block's id (mirrored here: every change is a relative Redis
 * operation issued in order on admission's connection), `used` is what the process's own requests take of it:
 * holds of requests in flight plus charges that are answered but not yet in the ledger. When a charge reaches the
 * ledger, it leaves both `used` and `size` (SETTLE_MANY moves it from the block into the settled set), so free
 * capacity (`size − used`) is unchanged, and the block is grown back towards its target in the background.
 *
 * Blocks are only made while the balance is large against the request (at most an eighth of what is available, at
 * least eight requests' worth); near the end of a balance, requests reserve one by one in Redis as before, and a
 * request that does not fit in its block first gives the block's free capacity back (the block drains), so this
 * process never refuses a request while holding quota that would have admitted it. Idle blocks drain too.
 */

export interface QuotaBlock {
  readonly id: string;
  readonly userId: number;
  readonly tokenId: number | null;
  /** The amount of the request that made the block: targets are counted in these. */
  readonly unit: number;
  /** Amount reserved in Redis under `id` (local mirror). */
  size: number;
  /** Holds of requests in flight + answered charges not yet shipped to the ledger. */
  used: number;
  /** Free capacity the block is grown back to. */
  target: number;
  growing: boolean;
  /** The grow in flight, if any: a drain gives capacity back only after it (so the two stay in order). */
  growth: Promise<void> | null;
  /** No new holds; capacity is given back as it frees up. Removed once empty. */
  draining: boolean;
  lastUsedAt: number;
}

export interface BlockHold {
  block: QuotaBlock;
  amount: number;
}

/** Redis side of the blocks (QuotaAdmissionService): relative operations, each atomic. */
export interface BlockStore {
  /** Adds `extra` to the block's reservation if available; resolves with what the user and token have left after. */
  grow(block: QuotaBlock, extra: number): Promise<{ ok: boolean; userAvailable: number; tokenAvailable: number | null }>;
  /** Gives `amount` of the block's reservation back. */
  shrink(block: QuotaBlock, amount: number): Promise<void>;
  /** Keeps the block's lease alive (or drops it from renewal). */
  hold(block: QuotaBlock): void;
  unhold(block: QuotaBlock): void;
}

export interface QuotaBlockOptions {
  /** A block targets at most this share of what is available (default 1/8). */
  shareOfAvailable: number;
  /** A block is made only if its target is at least this many times the request's amount (default 8). */
  minRequests: number;
  /** A block's target is at most this many times the request's amount (default 256). */
  maxRequests: number;
  /** A block unused for this long drains (default 2,000 ms). */
  idleMs: number;
}

export const DEFAULT_BLOCK_OPTIONS: QuotaBlockOptions = { shareOfAvailable: 1 / 8, minRequests: 8, maxRequests: 256, idleMs: 2_000 };

export function blockKey(userId: number, tokenId: number | null): string {
  return `${userId}:${tokenId ?? ''}`;
}

/** tryHold's answer: admitted from a block, or not (then reserve in Redis, after `wait` if there is one). */
export type HoldAttempt = { hold: BlockHold; wait?: undefined } | { hold: null; wait: Promise<void> | null };

export class QuotaBlocks {
  private readonly active = new Map<string, QuotaBlock>();
  /** Per key, the give-back of a draining block that is not issued yet (it waits for a grow in flight). */
  private readonly givingBack = new Map<string, Promise<void>>();
  private readonly all = new Set<QuotaBlock>();
  private readonly holds = new Map<string, BlockHold>();
  private seq = 0;

  constructor(
    private readonly store: BlockStore,
    private readonly owner: () => string,
    private readonly options: QuotaBlockOptions = DEFAULT_BLOCK_OPTIONS,
    private readonly now: () => number = Date.now,
  ) {}

  /** Blocks alive (active or draining), for tests and metrics. */
  get blocks(): readonly QuotaBlock[] {
    return [...this.all];
  }

  /**
   * Admits `amount` for `requestId` from the key's block, in memory. When it does not fit, the block drains (its
   * free capacity goes back to Redis) and the caller reserves in Redis after `wait`: by then the give-back has been
   * issued on admission's one connection, so Redis's exact check sees everything this process is not using.
   */
  tryHold(requestId: string, userId: number, tokenId: number | null, amount: number): HoldAttempt {
    const key = blockKey(userId, tokenId);
    const block = this.active.get(key);
    if (!block) return { hold: null, wait: this.givingBack.get(key) ?? null };
    if (block.size - block.used < amount) return { hold: null, wait: this.drain(block) };
    block.used += amount;
    block.lastUsedAt = this.now();
    const hold = { block, amount };
    this.holds.set(requestId, hold);
    this.maybeGrow(block);
    return { hold };
  }

  /** The hold of a request admitted from a block, if any. */
  holdOf(requestId: string): BlockHold | undefined {
    return this.holds.get(requestId);
  }

  /** The request failed before any charge: its hold goes. */
  releaseHold(requestId: string): boolean {
    const hold = this.holds.get(requestId);
    if (!hold) return false;
    this.holds.delete(requestId);
    hold.block.used -= hold.amount;
    this.giveBackIfDraining(hold.block);
    return true;
  }

  /**
   * The request's charge exceeds its hold by `extra`: the hold takes what it can of the block's free capacity, in
   * memory. Resolves with the part of `extra` still uncovered (the caller asks Redis for it, see COVER) and the hold.
   */
  growHold(requestId: string, extra: number): { hold: BlockHold | undefined; uncovered: number } {
    const hold = this.holds.get(requestId);
    if (!hold) return { hold, uncovered: extra };
    const take = Math.max(0, Math.min(extra, hold.block.size - hold.block.used));
    hold.amount += take;
    hold.block.used += take;
    return { hold, uncovered: extra - take };
  }

  /** Redis granted `grant` more to the hold's block (COVER, a relative increment): the mirror and the hold follow. */
  covered(hold: BlockHold, grant: number): void {
    hold.block.size += grant;
    hold.block.used += grant;
    hold.amount += grant;
  }

  /** The request was answered and its charge is durable (journal): the charge replaces the hold until shipped. */
  charged(requestId: string, charge: number): void {
    const hold = this.holds.get(requestId);
    if (!hold) return;
    this.holds.delete(requestId);
    hold.block.used += charge - hold.amount;
    this.giveBackIfDraining(hold.block);
  }

  /** A charge of this process's block reached the ledger: it leaves the block (SETTLE_MANY shrinks it in Redis). */
  shipped(blockId: string, charge: number): void {
    for (const block of this.all) {
      if (block.id !== blockId) continue;
      block.used -= charge;
      block.size -= charge;
      if (block.draining) this.giveBackIfDraining(block);
      else this.maybeGrow(block);
      return;
    }
  }

  /**
   * After a request reserved on its own in Redis: if the key has no block and the balance is large against the
   * request, a block is made (in the background) for the next ones.
   */
  consider(userId: number, tokenId: number | null, amount: number, userAvailable: number, tokenAvailable: number | null): void {
    const key = blockKey(userId, tokenId);
    if (this.active.has(key)) return;
    const target = this.targetFor(amount, userAvailable, tokenAvailable);
    if (target === null) return;
    const block: QuotaBlock = {
      id: `blk:${this.owner()}:${++this.seq}`,
      userId,
      tokenId,
      unit: Math.max(1, amount),
      size: 0,
      used: 0,
      target,
      growing: false,
      growth: null,
      draining: false,
      lastUsedAt: this.now(),
    };
    this.active.set(key, block);
    this.all.add(block);
    this.store.hold(block);
    this.maybeGrow(block);
  }

  /**
   * A request was refused in Redis: gives back every bit of capacity this process holds for the user (or, for a
   * token refusal, for that token) and resolves true if there was any, so the request can be tried in Redis once
   * more. This keeps refusals exact as far as this process goes: it never refuses while holding quota itself.
   */
  async giveBackFor(userId: number, tokenId: number | null): Promise<boolean> {
    const waits: Array<Promise<void>> = [];
    let any = false;
    for (const block of [...this.all]) {
      if (block.userId !== userId || (tokenId !== null && block.tokenId !== tokenId)) continue;
      if (block.growing || block.size - block.used > 0) any = true;
      waits.push(this.drain(block));
    }
    for (const [key, pending] of this.givingBack) {
      if (key.startsWith(`${userId}:`) && (tokenId === null || key === blockKey(userId, tokenId))) {
        any = true;
        waits.push(pending);
      }
    }
    await Promise.all(waits);
    return any;
  }

  /** Drains blocks unused for `idleMs` (called by a timer). */
  drainIdle(): void {
    const cutoff = this.now() - this.options.idleMs;
    for (const block of [...this.active.values()]) if (block.lastUsedAt < cutoff) void this.drain(block);
  }

  /** Drains every block (shutdown): the free capacity goes back at once; what is in use follows as it frees up. */
  drainAll(): Promise<void> {
    const pending: Array<Promise<void>> = [];
    for (const block of [...this.active.values()]) pending.push(this.drain(block));
    return Promise.all(pending).then(() => undefined);
  }

  private targetFor(amount: number, userAvailable: number, tokenAvailable: number | null): number | null {
    const unit = Math.max(1, amount);
    let target = Math.min(unit * this.options.maxRequests, Math.floor(userAvailable * this.options.shareOfAvailable));
    if (tokenAvailable !== null) target = Math.min(target, Math.floor(tokenAvailable * this.options.shareOfAvailable));
    return target >= unit * this.options.minRequests ? target : null;
  }

  private maybeGrow(block: QuotaBlock): void {
    if (block.growing || block.draining) return;
    const free = block.size - block.used;
    if (free >= block.target / 2) return;
    const extra = block.target - free;
    if (extra <= 0) return;
    block.growing = true;
    block.growth = this.store.grow(block, extra).then(
      (result) => {
        block.growing = false;
        block.growth = null;
        if (result.ok) {
          block.size += extra;
          if (block.draining) void this.giveBack(block);
          return;
        }
        // Not enough left for the target: aim lower, or stop growing this block (it drains, requests go to Redis).
        const lower = this.targetFor(block.unit, result.userAvailable, result.tokenAvailable);
        if (lower === null || lower <= block.size - block.used) void this.drain(block);
        else block.target = lower;
      },
      () => {
        block.growing = false;
        block.growth = null;
        void this.drain(block);
      },
    );
  }

  /** Stops admitting from the block; resolves once its free capacity's give-back has been issued. */
  private drain(block: QuotaBlock): Promise<void> {
    const key = blockKey(block.userId, block.tokenId);
    if (!block.draining) {
      block.draining = true;
      if (this.active.get(key) === block) this.active.delete(key);
    }
    if (!block.growth) return this.giveBack(block);
    const issued = block.growth.then(() => this.giveBack(block));
    this.givingBack.set(key, issued);
    void issued.finally(() => {
      if (this.givingBack.get(key) === issued) this.givingBack.delete(key);
    });
    return issued;
  }

  private giveBackIfDraining(block: QuotaBlock): void {
    if (block.draining && !block.growing) void this.giveBack(block);
  }

  /** A draining block keeps only what is in use: the rest goes back to Redis; an empty block is forgotten. */
  private giveBack(block: QuotaBlock): Promise<void> {
    const free = block.size - block.used;
    let sent = Promise.resolve();
    if (free > 0) {
      block.size -= free;
      sent = this.store.shrink(block, free);
    }
    if (block.size <= 0 && block.used <= 0 && this.all.delete(block)) this.store.unhold(block);
    return sent.catch(() => undefined);
  }
}
