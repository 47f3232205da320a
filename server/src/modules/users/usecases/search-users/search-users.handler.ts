import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import { type FindOptionsWhere, Like, type Repository } from 'typeorm';
import { UserEntity } from '../../user.entity';
import { isRowId, parseGoInt } from '../../user-input';
import { UserReadModel } from '../../user-read.model';
import type { UserJson } from '../../user.serializer';
import { SearchUsersQuery } from './search-users.query';

/**
 * The keyword goes into LIKE as new-api passes it (its % and _ still work as wildcards), except that a
 * backslash is made literal: in Postgres it is LIKE's escape character and a trailing one is an error.
 */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/\\/g, '\\\\')}%`;
}

@QueryHandler(SearchUsersQuery)
export class SearchUsersHandler implements IQueryHandler<SearchUsersQuery> {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly readModel: UserReadModel,
  ) {}

  async execute({ keyword, group }: SearchUsersQuery): Promise<UserJson[]> {
    // No stored value holds NUL, and Postgres refuses it as a parameter: such a search simply matches nothing.
    if (keyword.includes('\u0000') || group.includes('\u0000')) return [];
    const inGroup = group ? { group } : {};
    const id = parseGoInt(keyword);
    if (isRowId(id)) {
      const byId = await this.users.find({ where: { id, ...inGroup }, withDeleted: true });
      if (byId.length) return this.readModel.toJsonList(byId);
    }
    const pattern = Like(likePattern(keyword));
    const where: Array<FindOptionsWhere<UserEntity>> = [
      { username: pattern, ...inGroup },
      { email: pattern, ...inGroup },
      { displayName: pattern, ...inGroup },
    ];
    const rows = await this.users.find({ where, withDeleted: true, order: { id: 'DESC' } });
    return this.readModel.toJsonList(rows);
  }
}
