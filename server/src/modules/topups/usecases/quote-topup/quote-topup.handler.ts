import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { OptionsService } from '#server/modules/options/options.service';
import { TOPUP_MONEY_TOO_LOW, TopUpRefusedError } from '../../topup.errors';
import { topUpSettingsFromOptions } from '../../topup-gateway';
import { formatMoney, quoteTopUp } from '../../topup-pricing';
import { QuoteTopUpQuery } from './quote-topup.query';

/** The quote; its money floor is `≤ 0.01` (new-api's /amount, where /pay refuses only `< 0.01`). */
@QueryHandler(QuoteTopUpQuery)
export class QuoteTopUpHandler implements IQueryHandler<QuoteTopUpQuery> {
  constructor(private readonly options: OptionsService) {}

  async execute({ amount, group }: QuoteTopUpQuery): Promise<string> {
    const quote = quoteTopUp(amount, group, topUpSettingsFromOptions(this.options));
    if (quote.payMoney <= 0.01) throw new TopUpRefusedError(TOPUP_MONEY_TOO_LOW);
    return formatMoney(quote.payMoney);
  }
}
