import type { EntityManager } from 'typeorm';

/**
 * The statements sent on `manager`'s connection until `stop()`: counted on the connection itself, so both
 * `manager.query` and the named batch statements (prepared-query.ts) count.
 */
export async function countingStatements(manager: EntityManager): Promise<{ statements: () => number; stop: () => void }> {
  const client = (await manager.queryRunner!.connect()) as { query: (...args: unknown[]) => unknown };
  const own = Object.prototype.hasOwnProperty.call(client, 'query');
  const original = client.query;
  let statements = 0;
  client.query = function counted(this: unknown, ...args: unknown[]) {
    statements++;
    return original.apply(this, args);
  };
  return {
    statements: () => statements,
    stop: () => {
      if (own) client.query = original;
      else delete (client as { query?: unknown }).query;
    },
  };
}
