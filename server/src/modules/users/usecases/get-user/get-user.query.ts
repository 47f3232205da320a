import { Query } from '@nestjs/cqrs';
import type { UserJson } from '../../user.serializer';

/** GET /api/user/:id (admin): one non-deleted user, refused for peers and superiors unless the caller is root. */
export class GetUserQuery extends Query<UserJson> {
  constructor(
    readonly id: number,
    readonly callerRole: number,
  ) {
    super();
  }
}
