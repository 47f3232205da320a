import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import bcrypt from 'bcryptjs';
import { Role } from '../../user.entity';
import { UserNotFoundError } from '../../user.errors';
import { UserReadModel } from '../../user-read.model';
import type { UserJson } from '../../user.serializer';
import { ROOT_DEFAULT_PASSWORD } from '../seed-root-account/seed-root-account.command';
import { GetSelfQuery } from './get-self.query';

@QueryHandler(GetSelfQuery)
export class GetSelfHandler implements IQueryHandler<GetSelfQuery> {
  constructor(private readonly readModel: UserReadModel) {}

  async execute({ userId }: GetSelfQuery): Promise<UserJson> {
    const user = await this.readModel.findUser(userId);
    if (!user) throw new UserNotFoundError();
    // new-api warns about root's default password in the browser only, right after a login. Answering it
    // here (root only, never the hash) lets the console warn on every visit until the password is changed.
    const passwordIsDefault = user.role >= Role.Root ? await bcrypt.compare(ROOT_DEFAULT_PASSWORD, user.password) : undefined;
    return this.readModel.toJson(user, { passwordIsDefault, withAccessToken: true });
  }
}
