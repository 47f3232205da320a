import { Column, CreateDateColumn, DeleteDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

export const Role = { Guest: 0, Common: 1, Admin: 10, Root: 100 } as const;
export type RoleValue = (typeof Role)[keyof typeof Role];
export const UserStatus = { Enabled: 1, Disabled: 2 } as const;

/**
 * Configuration state of a user (profile, credentials, role, status, bindings). Money lives in the ledger:
 * quota, used_quota, request_count and the affiliate figures come from the account-balances projection.
 */
@Entity({ name: 'users' })
export class UserEntity {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar' })
  username!: string;

  /** bcrypt hash; never serialised. */
  @Column({ type: 'varchar' })
  password!: string;

  @Column({ type: 'varchar', name: 'display_name', default: '' })
  displayName!: string;

  @Column({ type: 'integer', default: Role.Common })
  role!: number;

  @Column({ type: 'integer', default: UserStatus.Enabled })
  status!: number;

  @Column({ type: 'varchar', default: '' })
  email!: string;

  @Column({ type: 'varchar', name: 'github_id', default: '' })
  githubId!: string;

  @Column({ type: 'varchar', name: 'wechat_id', default: '' })
  wechatId!: string;

  @Column({ type: 'varchar', name: 'telegram_id', default: '' })
  telegramId!: string;

  @Column({ type: 'char', name: 'access_token', nullable: true })
  accessToken!: string | null;

  @Column({ type: 'varchar', name: 'group', default: 'default' })
  group!: string;

  @Column({ type: 'varchar', name: 'aff_code', nullable: true })
  affCode!: string | null;

  @Column({ type: 'integer', name: 'inviter_id', default: 0 })
  inviterId!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @DeleteDateColumn({ name: 'deleted_at', type: 'timestamptz', nullable: true })
  deletedAt!: Date | null;
}
