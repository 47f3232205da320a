import { Query } from '@nestjs/cqrs';
import type { TopUpPage } from '../../topup.reader';
import type { TopUpOrderJson } from '../../topup.serializer';

/** GET /api/user/topup/self (own orders) and GET /api/user/topup?user_id= (admins: everyone's, or one user's). */
export class ListTopUpOrdersQuery extends Query<TopUpOrderJson[]> {
  constructor(
    readonly userId: number | null,
    readonly page: TopUpPage,
  ) {
    super();
  }
}
