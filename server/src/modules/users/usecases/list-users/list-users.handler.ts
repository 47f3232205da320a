import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { InjectRepository } from '@nestjs/typeorm';
import type { Repository } from 'typeorm';
import { UserEntity } from '../../user.entity';
import { UserReadModel } from '../../user-read.model';
import type { UserJson } from '../../user.serializer';
import { ListUsersQuery, USERS_PER_PAGE } from './list-users.query';

@QueryHandler(ListUsersQuery)
export class ListUsersHandler implements IQueryHandler<ListUsersQuery> {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    private readonly readModel: UserReadModel,
  ) {}

  async execute({ page }: ListUsersQuery): Promise<UserJson[]> {
    const rows = await this.users.find({
      withDeleted: true,
      order: { id: 'DESC' },
      skip: Math.max(0, page) * USERS_PER_PAGE,
      take: USERS_PER_PAGE,
    });
    return this.readModel.toJsonList(rows);
  }
}
