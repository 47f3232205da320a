import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'options' })
export class OptionEntity {
  @PrimaryColumn({ type: 'varchar' })
  key!: string;

  @Column({ type: 'text', default: '' })
  value!: string;
}
