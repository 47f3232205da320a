import { Query } from '@nestjs/cqrs';
import type { RedemptionJson } from '../../redemption.serializer';

/** GET /api/redemption/?p: newest first, 10 a page (0-based), deleted codes left out. */
export class ListRedemptionsQuery extends Query<RedemptionJson[]> {
  constructor(readonly page: number) {
    super();
  }
}

/** GET /api/redemption/search?keyword: `id = keyword` or a name starting with it, unpaged. */
export class SearchRedemptionsQuery extends Query<RedemptionJson[]> {
  constructor(readonly keyword: string) {
    super();
  }
}

/** GET /api/redemption/:id. */
export class GetRedemptionQuery extends Query<RedemptionJson> {
  constructor(readonly id: number) {
    super();
  }
}
