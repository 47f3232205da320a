import { Column, Entity, PrimaryColumn } from 'typeorm';
import { bigintAsNumber } from '../bigint-as-number';

/**
 * One dashboard row: the charges of one user (by id and name) on one model in one UTC hour. Written only by the
 * quota-data projection; `id` is the ledger position of the row's first charge, so a rebuild gives the same ids.
 */
@Entity({ name: 'quota_data' })
export class QuotaDataEntity {
  @PrimaryColumn({ type: 'bigint', transformer: bigintAsNumber })
  id!: number;

  @Column({ type: 'integer', name: 'user_id' })
  userId!: number;

  /** Byte order (migration 1732300009970), as `model_name`. */
  @Column({ type: 'varchar', length: 64, default: '', collation: 'C' })
  username!: string;

  @Column({ type: 'varchar', length: 256, name: 'model_name', default: '', collation: 'C' })
  modelName!: string;

  /** Unix seconds of the hour's start. */
  @Column({ type: 'bigint', name: 'created_at', transformer: bigintAsNumber })
  createdAt!: number;

  @Column({ type: 'integer', default: 0 })
  count!: number;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  quota!: number;

  @Column({ type: 'bigint', name: 'token_used', default: 0, transformer: bigintAsNumber })
  tokenUsed!: number;

  /** Global ledger position of the last charge folded in (each counts once even if replayed by hand). */
  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  position!: number;
}
