import type { EntityManager } from 'typeorm';
import type { RecordedEvent } from '#server/ledger/event-store.port';
import { advancingPerKey, applyInRuns, decodeEvent } from './batch-folds';
import { ProjectionEventError } from './projection';

const event = (position: number, type: string): RecordedEvent => ({
  id: `e-${position}`,
  streamId: 's-1',
  revision: position,
  position,
  type,
  data: {},
  metadata: { correlationId: 'c', causationId: null, actor: { type: 'system' }, clientIp: null, reasonCode: 'test', schemaVersion: 1 },
  createdAt: new Date(0),
});
const manager = {} as EntityManager;

describe('applyInRuns', () => {
  it('hands maximal runs of set events to the set fold and the others to apply one by one, in ledger order', async () => {
    const calls: string[] = [];
    const projection = { apply: async (e: RecordedEvent) => void calls.push(`apply ${e.position}`) };
    const types = ['C', 'C', 'G', 'C', 'G', 'G', 'C', 'C', 'C'];
    await applyInRuns(
      projection,
      types.map((type, i) => event(i + 1, type)),
      manager,
      (e) => e.type === 'C',
      async (run) => {
        calls.push(`set ${run.map((e) => e.position).join(',')}`);
      },
    );
    expect(calls).toEqual(['set 1,2', 'apply 3', 'set 4', 'apply 5', 'apply 6', 'set 7,8,9']);
  });

  it('names the event apply failed on', async () => {
    const projection = {
      apply: async (e: RecordedEvent) => {
        if (e.position === 2) throw new Error('bad');
      },
    };
    const failure = await applyInRuns(
      projection,
      [event(1, 'G'), event(2, 'G')],
      manager,
      () => false,
      async () => undefined,
    ).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ProjectionEventError);
    expect((failure as ProjectionEventError).event.position).toBe(2);
  });
});

describe('decodeEvent', () => {
  it('returns what the decoder returns, or names the event it threw on', () => {
    expect(decodeEvent(event(1, 'C'), (e) => e.position * 2)).toBe(2);
    expect(() =>
      decodeEvent(event(7, 'C'), () => {
        throw new Error('no quota');
      }),
    ).toThrow('C at position 7: no quota');
  });
});

describe('advancingPerKey', () => {
  /** The per-event guard itself: apply an item iff its rank beats the stored rank of its key, then store it. */
  function oneByOne(items: Array<[string, number]>, stored: Map<string, number>): Array<[string, number]> {
    const ranks = new Map(stored);
    return items.filter(([key, rank]) => {
      if (ranks.has(key) && rank <= ranks.get(key)!) return false;
      ranks.set(key, rank);
      return true;
    });
  }

  it('keeps exactly the items the per-event guard applies, once the stored rank is applied too, for any order', () => {
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
    for (let round = 0; round < 500; round++) {
      const items = Array.from({ length: next(30) }, (): [string, number] => [`k${next(3)}`, next(12)]);
      const stored = new Map<string, number>();
      for (const key of ['k0', 'k1', 'k2']) if (next(2)) stored.set(key, next(12));
      const set = advancingPerKey(
        items,
        ([key]) => key,
        ([, rank]) => rank,
      ).filter(([key, rank]) => !stored.has(key) || rank > stored.get(key)!);
      expect(set).toEqual(oneByOne(items, stored));
    }
  });

  it('drops a repeat and anything not above what came before for its key', () => {
    const items: Array<[string, number]> = [
      ['a', 1],
      ['b', 1],
      ['a', 3],
      ['a', 2],
      ['a', 3],
      ['b', 2],
    ];
    expect(
      advancingPerKey(
        items,
        ([key]) => key,
        ([, rank]) => rank,
      ),
    ).toEqual([
      ['a', 1],
      ['b', 1],
      ['a', 3],
      ['b', 2],
    ]);
  });
});
