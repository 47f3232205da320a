import { onWholeTable } from './deferred-indexes';

describe('onWholeTable', () => {
  it('turns the definition pg_get_indexdef gives for a partitioned table into one that reaches every partition', () => {
    expect(onWholeTable('CREATE INDEX logs_user_id_idx ON ONLY public.logs USING btree (user_id)')).toBe(
      'CREATE INDEX logs_user_id_idx ON public.logs USING btree (user_id)',
    );
    expect(onWholeTable('CREATE UNIQUE INDEX "odd ""name"" ON ONLY x" ON ONLY public.logs USING btree (id)')).toBe(
      'CREATE UNIQUE INDEX "odd ""name"" ON ONLY x" ON public.logs USING btree (id)',
    );
  });

  it('leaves the definition of an ordinary table as it is', () => {
    const plain = 'CREATE INDEX statement_lines_note ON public.statement_lines USING btree (note)';
    expect(onWholeTable(plain)).toBe(plain);
  });
});
