import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { In, type Repository } from 'typeorm';
import { AccountBalanceEntity } from '#projections/read-models/account-balances/account-balance.entity';
import { UserEntity } from './user.entity';
import { type SerializeOptions, toUserJson, type UserJson } from './user.serializer';

/**
 * The query side of users: configuration rows from `users` joined with their money from `account_balances`
 * (the projection). A user whose account has no events has no balance row and reads as zeros.
 */
@Injectable()
export class UserReadModel {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(AccountBalanceEntity) private readonly balances: Repository<AccountBalanceEntity>,
  ) {}

  async balancesOf(userIds: number[]): Promise<Map<number, AccountBalanceEntity>> {
    if (userIds.length === 0) return new Map();
    const rows = await this.balances.findBy({ userId: In(userIds) });
    return new Map(rows.map((row) => [row.userId, row]));
  }

  async balanceOf(userId: number): Promise<AccountBalanceEntity | null> {
    return (await this.balancesOf([userId])).get(userId) ?? null;
  }

  /** One user (soft-deleted ones only when asked), or null. */
  findUser(id: number, options: { withDeleted?: boolean } = {}): Promise<UserEntity | null> {
    return this.users.findOne({ where: { id }, withDeleted: options.withDeleted ?? false });
  }

  async toJson(user: UserEntity, options: SerializeOptions = {}): Promise<UserJson> {
    return toUserJson(user, await this.balanceOf(user.id), options);
  }

  async toJsonList(users: UserEntity[]): Promise<UserJson[]> {
    const balances = await this.balancesOf(users.map((user) => user.id));
    return users.map((user) => toUserJson(user, balances.get(user.id) ?? null));
  }
}
