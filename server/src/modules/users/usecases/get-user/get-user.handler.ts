import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { Role } from '../../user.entity';
import { UserActionRefusedError, UserNotFoundError } from '../../user.errors';
import { UserReadModel } from '../../user-read.model';
import type { UserJson } from '../../user.serializer';
import { GetUserQuery } from './get-user.query';

@QueryHandler(GetUserQuery)
export class GetUserHandler implements IQueryHandler<GetUserQuery> {
  constructor(private readonly readModel: UserReadModel) {}

  async execute({ id, callerRole }: GetUserQuery): Promise<UserJson> {
    // Scoped like new-api: a cancelled user is not found here (the list still shows it).
    const user = await this.readModel.findUser(id);
    if (!user) throw new UserNotFoundError();
    if (callerRole <= user.role && callerRole !== Role.Root) throw new UserActionRefusedError('cannot_read_peer');
    const balance = await this.readModel.balanceOf(id);
    // The edit form sends account_revision back, so a quota edit is decided against this very balance.
    return this.readModel.toJson(user, { accountRevision: balance?.revision ?? -1 });
  }
}
