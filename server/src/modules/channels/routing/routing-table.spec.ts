import { normalizeRoutedModel, pickWeighted, type RoutableChannel, RoutingTable } from './routing-table';

/** A seeded generator (mulberry32), so the distribution tests are repeatable. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function channel(id: number, overrides: Partial<RoutableChannel> = {}): RoutableChannel {
  return {
    id,
    type: 1,
    name: `c${id}`,
    key: `k${id}`,
    baseUrl: '',
    models: ['gpt-4o'],
    modelMapping: {},
    groups: ['default'],
    priority: 0,
    weight: 0,
    autoBan: true,
    other: '',
    config: {},
    headerOverride: {},
    paramOverride: {},
    openaiOrganization: null,
    statusCodeMapping: {},
    testModel: null,
    status: 1,
    ...overrides,
  };
}

function counts(table: RoutingTable, picks: number, pick: () => RoutableChannel | null): Map<number, number> {
  const seen = new Map<number, number>();
  for (let i = 0; i < picks; i++) {
    const id = pick()?.id ?? 0;
    seen.set(id, (seen.get(id) ?? 0) + 1);
  }
  expect(table.size).toBeGreaterThan(0);
  return seen;
}

describe('RoutingTable', () => {
  it('honours weights: 7:3 gives 70/30 within a few percent over 10 000 picks', () => {
    const table = new RoutingTable([channel(1, { weight: 7 }), channel(2, { weight: 3 })], seeded(42));
    const seen = counts(table, 10_000, () => table.select('default', 'gpt-4o'));
    expect(seen.get(1)! / 10_000).toBeGreaterThan(0.68);
    expect(seen.get(1)! / 10_000).toBeLessThan(0.72);
    expect(seen.get(2)! / 10_000).toBeGreaterThan(0.28);
    expect(seen.get(2)! / 10_000).toBeLessThan(0.32);
  });

  it('picks uniformly among channels that all weigh 0, and never a weight-0 channel beside weighted ones', () => {
    const even = new RoutingTable([channel(1), channel(2)], seeded(7));
    const seen = counts(even, 4000, () => even.select('default', 'gpt-4o'));
    expect(seen.get(1)! / 4000).toBeGreaterThan(0.45);
    expect(seen.get(2)! / 4000).toBeGreaterThan(0.45);
    const mixed = new RoutingTable([channel(1), channel(2, { weight: 1 })], seeded(8));
    expect(counts(mixed, 500, () => mixed.select('default', 'gpt-4o')).get(1)).toBeUndefined();
  });

  it('serves the highest priority tier first; retry n uses the n-th tier, past the last the last', () => {
    const table = new RoutingTable(
      [channel(1, { priority: 10 }), channel(2, { priority: 5 }), channel(3, { priority: 5 }), channel(4, { priority: -3 })],
      seeded(1),
    );
    expect(counts(table, 200, () => table.select('default', 'gpt-4o'))).toEqual(new Map([[1, 200]]));
    const second = counts(table, 400, () => table.select('default', 'gpt-4o', { retry: 1 }));
    expect([...second.keys()].sort()).toEqual([2, 3]);
    expect(table.select('default', 'gpt-4o', { retry: 2 })?.id).toBe(4);
    expect(table.select('default', 'gpt-4o', { retry: 9 })?.id).toBe(4);
  });

  it('avoids excluded channels while another exists: same tier, then lower, then higher; else the tier again', () => {
    const table = new RoutingTable(
      [channel(1, { priority: 10 }), channel(2, { priority: 10 }), channel(3, { priority: 5 }), channel(4, { priority: 0 })],
      seeded(3),
    );
    expect(counts(table, 200, () => table.select('default', 'gpt-4o', { exclude: new Set([1]) }))).toEqual(new Map([[2, 200]]));
    expect(table.select('default', 'gpt-4o', { exclude: new Set([1, 2]) })?.id).toBe(3);
    expect(table.select('default', 'gpt-4o', { retry: 2, exclude: new Set([4]) })?.id).toBe(3);
    expect(table.select('default', 'gpt-4o', { retry: 2, exclude: new Set([3, 4]) })?.id).toBeLessThanOrEqual(2);
    expect(table.select('default', 'gpt-4o', { retry: 2, exclude: new Set([1, 2, 3, 4]) })?.id).toBe(4);
  });

  it('routes only enabled channels of the group that list the model, but get() finds any channel', () => {
    const table = new RoutingTable([
      channel(1, { status: 2 }),
      channel(2, { status: 3 }),
      channel(3, { groups: ['vip'], models: ['claude-3-5-sonnet-20240620', 'gpt-4o'] }),
      channel(4, { groups: ['default', 'vip'], models: ['gpt-4-gizmo-*'] }),
    ]);
    expect(table.select('default', 'gpt-4o')).toBeNull();
    expect(table.select('vip', 'gpt-4o')?.id).toBe(3);
    expect(table.select('nobody', 'gpt-4o')).toBeNull();
    expect(table.select('default', 'gpt-4-gizmo-g-abc')?.id).toBe(4);
    expect(table.get(1)?.status).toBe(2);
    expect(table.get(99)).toBeNull();
    expect(table.modelsForGroup('vip')).toEqual(['claude-3-5-sonnet-20240620', 'gpt-4-gizmo-*', 'gpt-4o']);
    expect(table.modelsForGroup('default')).toEqual(['gpt-4-gizmo-*']);
  });

  it('normalises the gizmo model names and picks in proportion for plain lists', () => {
    expect(normalizeRoutedModel('gpt-4o-gizmo-g-1')).toBe('gpt-4o-gizmo-*');
    expect(normalizeRoutedModel('gpt-4o')).toBe('gpt-4o');
    const random = seeded(5);
    let heavy = 0;
    for (let i = 0; i < 2000; i++) if (pickWeighted([{ weight: 1 }, { weight: 3 }], random).weight === 3) heavy++;
    expect(heavy / 2000).toBeGreaterThan(0.72);
    expect(heavy / 2000).toBeLessThan(0.78);
  });

  it('lists the enabled abilities as model → groups, both sorted, the same map for the same snapshot', () => {
    const table = new RoutingTable([
      channel(1, { models: ['gpt-4o', 'b-model'], groups: ['vip', 'default'] }),
      channel(2, { models: ['gpt-4o'], groups: ['default'] }),
      channel(3, { models: ['off-model'], groups: ['default'], status: 2 }),
    ]);
    expect([...table.enabledModelGroups()]).toEqual([
      ['b-model', ['default', 'vip']],
      ['gpt-4o', ['default', 'vip']],
    ]);
    expect(table.enabledModelGroups()).toBe(table.enabledModelGroups());
  });
});
