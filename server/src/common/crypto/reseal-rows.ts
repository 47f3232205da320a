import type { DataSource } from 'typeorm';
import type { SecretBox } from './secret-box';

/** One secret column of a configuration table: how to list its values and how to write one back. */
export interface SealedColumn {
  /** `SELECT <id>, <value> … FOR UPDATE` answering rows of `{ id, value }`. */
  select: string;
  /** `UPDATE … SET <value> = $2 WHERE <id> = $1`. */
  update: string;
  /** The additional authenticated data of a row's value (SecretBox.seal). */
  purpose: (id: string) => string;
}

/** Held while a pass runs: processes starting together re-encrypt one after the other, the second finding nothing. */
const RESEAL_LOCK = 7_311_085;

/**
 * Seals with the current key every value of `column` that is plain (stored by a version without encryption at rest)
 * or sealed with an old key (a rotation), in one transaction. Answers how many values it re-encrypted. A value
 * sealed with a key this process lacks throws (SecretUnreadableError, naming the key id): better no start than
 * channels or options silently emptied.
 */
export async function resealRows(dataSource: DataSource, box: SecretBox, column: SealedColumn): Promise<number> {
  return dataSource.transaction(async (manager) => {
    await manager.query('SELECT pg_advisory_xact_lock($1)', [RESEAL_LOCK]);
    const rows: Array<{ id: string | number; value: string }> = await manager.query(column.select);
    let count = 0;
    for (const row of rows) {
      const id = String(row.id);
      if (!box.needsSealing(row.value)) continue;
      const plain = box.open(row.value, column.purpose(id));
      await manager.query(column.update, [row.id, box.seal(plain, column.purpose(id))]);
      count += 1;
    }
    return count;
  });
}
