import { Query } from '@nestjs/cqrs';
import type { UserJson } from '../../user.serializer';

/** GET /api/user/self: the caller, fresh from the database, with their balances. */
export class GetSelfQuery extends Query<UserJson> {
  constructor(readonly userId: number) {
    super();
  }
}
