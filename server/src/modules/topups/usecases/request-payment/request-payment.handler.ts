import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { deterministicEventId } from '#server/ledger/event-ids';
import { topUpStream } from '#server/ledger/streams';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { OptionsService } from '#server/modules/options/options.service';
import { decide, initialTopUpState } from '../../topup.decider';
import { TOPUP_MONEY_TOO_LOW, TOPUP_NOT_CONFIGURED, TOPUP_UNKNOWN_METHOD, TopUpRefusedError } from '../../topup.errors';
import { isPaymentMethod } from '../../topup.events';
import { evolveStored, toNewTopUpEvent } from '../../topup-event-codec';
import { epayGateway, newTradeNo, type PurchaseForm, purchaseForm, topUpSettingsFromOptions } from '../../topup-gateway';
import { formatMoney, quoteTopUp } from '../../topup-pricing';
import { RequestTopUpPaymentCommand } from './request-payment.command';

/**
 * Checks the amount as new-api does (minimum, then the money floor `< 0.01`), then the method and the gateway,
 * appends TopUpOrdered on a new `topup-order-{tradeNo}` stream and answers the signed purchase form. Nothing is
 * written for a refused request.
 */
@CommandHandler(RequestTopUpPaymentCommand)
export class RequestTopUpPaymentHandler implements ICommandHandler<RequestTopUpPaymentCommand> {
  constructor(
    private readonly aggregates: AggregateRepository,
    private readonly options: OptionsService,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ input }: RequestTopUpPaymentCommand): Promise<PurchaseForm> {
    const quote = quoteTopUp(input.amount, input.group, topUpSettingsFromOptions(this.options));
    if (quote.payMoney < 0.01) throw new TopUpRefusedError(TOPUP_MONEY_TOO_LOW);
    const paymentMethod = input.paymentMethod;
    if (!isPaymentMethod(paymentMethod)) throw new TopUpRefusedError(TOPUP_UNKNOWN_METHOD);
    const gateway = epayGateway(this.options);
    if (!gateway) throw new TopUpRefusedError(TOPUP_NOT_CONFIGURED);

    const now = Math.floor(Date.now() / 1000);
    const tradeNo = newTradeNo(input.userId, now);
    const money = formatMoney(quote.payMoney);
    const form = purchaseForm(gateway, { tradeNo, amount: quote.amount, money, paymentMethod }, this.options);
    const result = await this.aggregates.loadAndAppend(
      topUpStream(tradeNo),
      evolveStored,
      initialTopUpState,
      (state) =>
        decide(
          {
            type: 'PlaceTopUpOrder',
            tradeNo,
            userId: input.userId,
            username: input.username,
            amount: quote.amount,
            quota: quote.quota,
            money: Number(money),
            paymentMethod,
            createdTime: now,
          },
          state,
        ).map((event) =>
          toNewTopUpEvent(event, {
            id: deterministicEventId('topup-ordered', tradeNo),
            metadata: { correlationId: input.correlationId, actor: input.actor, clientIp: input.clientIp, reasonCode: 'topup_ordered' },
          }),
        ),
      { retries: 0 },
    );
    await this.readYourWrites.wait(result.position);
    return form;
  }
}
