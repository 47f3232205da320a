import { Query } from '@nestjs/cqrs';
import type { UserJson } from '../../user.serializer';

/** GET /api/user/search?keyword&group (admin): every match, cancelled users included (reference §4.3). */
export class SearchUsersQuery extends Query<UserJson[]> {
  constructor(
    readonly keyword: string,
    readonly group: string,
  ) {
    super();
  }
}
