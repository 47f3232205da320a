import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** Postgres bigint arrives as a string; priorities and times stay far below 2^53, so a number is exact. */
const bigintAsNumber = {
  to: (value: number | undefined) => value,
  from: (value: string | number | null) => (value === null ? 0 : Number(value)),
};

/**
 * Configuration of a channel (new-api's channel fields), written only by the channels command handlers.
 * What happens to a channel (status, tests, balance, used quota) is ledger state on `channel-{id}`, read from the
 * channel-status projection (`channel_status`).
 */
@Entity({ name: 'channels' })
export class ChannelEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'integer', default: 0 })
  type!: number;

  @Column({ type: 'text', default: '' })
  key!: string;

  @Column({ type: 'text', name: 'openai_organization', nullable: true })
  openaiOrganization!: string | null;

  @Column({ type: 'text', name: 'test_model', nullable: true })
  testModel!: string | null;

  @Column({ type: 'text', default: '' })
  name!: string;

  @Column({ type: 'integer', default: 0 })
  weight!: number;

  /** Unix seconds. */
  @Column({ type: 'bigint', name: 'created_time', default: 0, transformer: bigintAsNumber })
  createdTime!: number;

  /** '' means the type's default base URL; never ends with '/'. */
  @Column({ type: 'text', name: 'base_url', default: '' })
  baseUrl!: string;

  /** Type-specific: Azure api-version, Spark version, Vertex region(s), Cloudflare account id … */
  @Column({ type: 'text', default: '' })
  other!: string;

  /** Comma list, as on the wire. */
  @Column({ type: 'text', default: '' })
  models!: string;

  /** Comma list of groups, as on the wire. */
  @Column({ type: 'text', name: 'group', default: 'default' })
  group!: string;

  @Column({ type: 'text', name: 'model_mapping', default: '' })
  modelMapping!: string;

  @Column({ type: 'text', name: 'status_code_mapping', default: '' })
  statusCodeMapping!: string;

  @Column({ type: 'bigint', default: 0, transformer: bigintAsNumber })
  priority!: number;

  @Column({ type: 'integer', name: 'auto_ban', default: 1 })
  autoBan!: number;

  @Column({ type: 'text', nullable: true })
  tag!: string | null;

  /** JSON object text (later new-api's per-channel `setting`), '' when none. */
  @Column({ type: 'text', default: '' })
  setting!: string;

  @Column({ type: 'text', name: 'param_override', default: '' })
  paramOverride!: string;

  @Column({ type: 'text', name: 'header_override', default: '' })
  headerOverride!: string;
}
