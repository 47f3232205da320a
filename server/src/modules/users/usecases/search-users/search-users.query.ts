import { Query } from '@nestjs/cqrs';
import type { UserJson } from '../../user.serializer';

/** GET /api/user/search?keyword&group (admin): every match, unpaged, cancelled users included (as new-api). */
export class SearchUsersQuery extends Query<UserJson[]> {
  constructor(
    readonly keyword: string,
    readonly group: string,
  ) {
    super();
  }
}
