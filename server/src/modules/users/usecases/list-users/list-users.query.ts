import { Query } from '@nestjs/cqrs';
import type { UserJson } from '../../user.serializer';

/** Users shown per page (new-api's ItemsPerPage; the console treats a shorter page as the last). */
export const USERS_PER_PAGE = 10;

/** GET /api/user/?p (admin): page `page` (0-based), newest first, cancelled users included. */
export class ListUsersQuery extends Query<UserJson[]> {
  constructor(readonly page: number) {
    super();
  }
}
