import type { Projection } from './projection';
import { ProjectionRegistry, validateProjections } from './projection-registry';

const projection = (name: string, tables: string[], handles: string[] = ['Something']): Projection => ({
  name,
  tables,
  handles,
  apply: async () => undefined,
});

describe('validateProjections', () => {
  it('given valid projections, then they come back sorted by name', () => {
    const result = validateProjections([projection('usage', ['usage_logs']), projection('balances', ['balances'])]);
    expect(result.map((p) => p.name)).toEqual(['balances', 'usage']);
    expect(ProjectionRegistry.of([projection('b', ['t1']), projection('a', ['t2'])]).names()).toEqual(['a', 'b']);
  });

  it('given two projections writing one table, then it refuses: each table has one writer', () => {
    expect(() => validateProjections([projection('a', ['balances']), projection('b', ['balances'])])).toThrow(
      'Table balances is claimed by projections a and b: each table has one writer',
    );
  });

  it('given a duplicate name, then it refuses (the name keys the checkpoint)', () => {
    expect(() => validateProjections([projection('a', ['t1']), projection('a', ['t2'])])).toThrow('Two projections are named a');
  });

  it('given a projection without tables or handles or apply, then it says what is missing', () => {
    expect(() => validateProjections([projection('a', [])])).toThrow(/must list the tables it writes/);
    expect(() => validateProjections([{ ...projection('a', ['t']), handles: undefined as never }])).toThrow(/event types it handles/);
    expect(() => validateProjections([{ ...projection('a', ['t']), apply: undefined as never }])).toThrow(/has no apply/);
  });
});
