import { randomUUID } from 'node:crypto';
import { Inject, Logger } from '@nestjs/common';
import { CommandHandler, type ICommandHandler } from '@nestjs/cqrs';
import { AggregateRepository } from '#server/ledger/aggregate-repository';
import { deterministicEventId } from '#server/ledger/event-ids';
import { EVENT_STORE, type EventStore } from '#server/ledger/event-store.port';
import { accountStream, topUpStream } from '#server/ledger/streams';
import { toNewAccountEvent } from '#server/modules/accounts/account-event-codec';
import { quotaDisplayFromOptions } from '#server/modules/accounts/quota-display';
import { ReadYourWrites } from '#server/modules/accounts/read-your-writes';
import { OptionsService } from '#server/modules/options/options.service';
import { epayVerify } from '../../epay-signature';
import { decide, initialTopUpState, type TopUpState } from '../../topup.decider';
import { TopUpStatus } from '../../topup.events';
import { evolveStored, toNewTopUpEvent } from '../../topup-event-codec';
import { epayGateway, isTradeNo } from '../../topup-gateway';
import { ConfirmTopUpPaymentCommand, type ConfirmTopUpPaymentInput } from './confirm-payment.command';

/** Concurrent callbacks of one order: the losers reload, find it settled and decide nothing. */
const CONFIRM_RETRIES = 10;

/** The gateway's decimal money text ("73.00"); anything else is not a payment this server can compare. */
const MONEY = /^\d{1,12}(\.\d{1,6})?$/;

/**
 * The Epay callback. Unconfigured gateway or a bad signature: `fail`, nothing read or written (new-api panicked on
 * the first). A signed TRADE_SUCCESS settles the order on its stream (TopUpPaid when the money equals the order's,
 * TopUpFailed otherwise; the expected revision lets one callback decide), then a paid order's QuotaToppedUp is
 * appended to the account with an id derived from the trade number: a no-op when it is there already, so repeated
 * callbacks (and a crash between the two appends, re-driven by the next callback) credit exactly once. `success`
 * is answered only once that is durable (new-api wrote it first), so a failure makes the gateway call again.
 */
@CommandHandler(ConfirmTopUpPaymentCommand)
export class ConfirmTopUpPaymentHandler implements ICommandHandler<ConfirmTopUpPaymentCommand> {
  private readonly logger = new Logger('EpayNotify');

  constructor(
    private readonly aggregates: AggregateRepository,
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly options: OptionsService,
    private readonly readYourWrites: ReadYourWrites,
  ) {}

  async execute({ input }: ConfirmTopUpPaymentCommand): Promise<'success' | 'fail'> {
    const gateway = epayGateway(this.options);
    if (!gateway) return 'fail';
    const { params } = input;
    if (!epayVerify(params, gateway.key)) return 'fail';
    // Signed, but not a payment (new-api acknowledges it and does nothing), or not an order of ours.
    if (params.trade_status !== 'TRADE_SUCCESS' || !isTradeNo(params.out_trade_no ?? '')) return 'success';
    if (!MONEY.test(params.money ?? '')) {
      this.logger.warn(`callback for ${params.out_trade_no} has no readable money ${JSON.stringify(params.money)}`);
      return 'fail';
    }
    try {
      const settled = await this.settle(params.out_trade_no, input);
      const order = settled.state;
      const position =
        order.ordered && order.status === TopUpStatus.Success ? await this.credit(order, input.correlationId) : settled.position;
      // The history and the balance show the outcome once the gateway has its answer.
      await this.readYourWrites.wait(position);
      return 'success';
    } catch (error) {
      this.logger.error(`callback for ${params.out_trade_no} not processed: ${(error as Error)?.message ?? String(error)}`);
      return 'fail';
    }
  }

  private async settle(tradeNo: string, input: ConfirmTopUpPaymentInput): Promise<{ state: TopUpState; position: number }> {
    const { params } = input;
    const result = await this.aggregates.loadAndAppend(
      topUpStream(tradeNo),
      evolveStored,
      initialTopUpState,
      (state) =>
        decide(
          {
            type: 'ConfirmTopUpPayment',
            money: Number(params.money),
            gatewayTradeNo: params.trade_no ?? '',
            paidTime: Math.floor(Date.now() / 1000),
          },
          state,
        ).map((event) =>
          toNewTopUpEvent(event, {
            // Random, never derived: a second callback's event must conflict on the revision (and be decided again
            // against the settled order), not pass as a duplicate of the first one's.
            id: randomUUID(),
            metadata: {
              correlationId: input.correlationId,
              actor: { type: 'system' },
              clientIp: input.clientIp,
              reasonCode: event.type === 'TopUpPaid' ? 'topup_paid' : 'topup_money_mismatch',
            },
          }),
        ),
      { retries: CONFIRM_RETRIES },
    );
    return { state: result.state, position: result.position };
  }

  /** Appends the credit of a paid order; its derived id makes every later append of it a no-op. */
  private async credit(order: TopUpState, correlationId: string): Promise<number> {
    const event = toNewAccountEvent(
      {
        type: 'QuotaToppedUp',
        data: { amount: order.quota, tradeNo: order.tradeNo, money: order.paidMoney, paymentMethod: order.paymentMethod },
      },
      {
        id: deterministicEventId('topup-paid', order.tradeNo),
        metadata: { correlationId, actor: { type: 'system' }, reasonCode: 'topup_credit' },
        annotation: { username: order.username, quotaDisplay: quotaDisplayFromOptions(this.options) },
      },
    );
    return (await this.store.appendToStream(accountStream(order.userId), [event], { expectedRevision: 'any' })).position;
  }
}
