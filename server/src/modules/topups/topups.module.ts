import { Module } from '@nestjs/common';
import { TopUpOrdersReadModelModule } from '#projections/read-models/topup-orders/topup-orders-read-model.module';
import { AccountsModule } from '../accounts/accounts.module';
import { TopUpBodyErrorsHook } from './topup-body-errors.hook';
import { TopUpFormActionHook } from './topup-form-action.hook';
import { TopUpReader } from './topup.reader';
import { TopUpsController } from './topups.controller';
import { ConfirmTopUpPaymentHandler } from './usecases/confirm-payment/confirm-payment.handler';
import { QuoteTopUpHandler } from './usecases/quote-topup/quote-topup.handler';
import { ListTopUpOrdersHandler } from './usecases/read-topups/read-topups.handler';
import { RequestTopUpPaymentHandler } from './usecases/request-payment/request-payment.handler';

/**
 * Online top-up through an Epay gateway: POST /api/user/amount and /pay, the GET /api/user/epay/notify callback,
 * the order history; their ledger side (`topup-order-{tradeNo}` streams, the QuotaToppedUp credit on the account)
 * and the topup_orders read model.
 */
@Module({
  imports: [TopUpOrdersReadModelModule, AccountsModule],
  controllers: [TopUpsController],
  providers: [
    TopUpReader,
    TopUpBodyErrorsHook,
    TopUpFormActionHook,
    QuoteTopUpHandler,
    RequestTopUpPaymentHandler,
    ConfirmTopUpPaymentHandler,
    ListTopUpOrdersHandler,
  ],
})
export class TopUpsModule {}
