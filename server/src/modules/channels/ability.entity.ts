import { Column, Entity, PrimaryColumn } from 'typeorm';

const bigintAsNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? 0 : Number(value)),
};

/**
 * The routing table (new-api's `abilities`): one row per group × model × channel, rebuilt by the channels command
 * handlers whenever a channel's configuration or status changes, in the same transaction. `enabled` is the
 * channel's status after its last status event (status 1). The relay does not read this table (ChannelRouter keeps
 * its own snapshot, which the pricing page also reads); it serves the user's model list fallbacks and `POST /api/channel/fix`.
 */
@Entity({ name: 'abilities' })
export class AbilityEntity {
  @PrimaryColumn({ type: 'varchar', length: 64 })
  group!: string;

  @PrimaryColumn({ type: 'varchar', length: 255 })
  model!: string;

  @PrimaryColumn({ type: 'integer', name: 'channel_id' })
  channelId!: number;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  priority!: number;

  @Column({ type: 'integer', default: 0 })
  weight!: number;

  @Column({ type: 'text', nullable: true })
  tag!: string | null;
}
