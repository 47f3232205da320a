import { Query } from '@nestjs/cqrs';

/** POST /api/user/amount: the payable money of `amount` for a user of `group`, with 2 decimals (a string). */
export class QuoteTopUpQuery extends Query<string> {
  constructor(
    readonly amount: number,
    readonly group: string,
  ) {
    super();
  }
}
