import { Module } from '@nestjs/common';
import { AccountBalancesReadModelModule } from '#projections/read-models/account-balances/account-balances-read-model.module';
import { LogsReadModelModule } from '#projections/read-models/logs/logs-read-model.module';
import { AccountsController } from './accounts.controller';
import { ReadYourWrites } from './read-your-writes';
import { AdjustQuotaByAdminHandler } from './usecases/adjust-quota-by-admin/adjust-quota-by-admin.handler';
import { TransferAffiliateQuotaHandler } from './usecases/transfer-affiliate-quota/transfer-affiliate-quota.handler';

/**
 * The ledger side of users: account streams, their command handlers and the read models they feed
 * (account_balances, and the account rows of logs). Needs LedgerModule and ProjectionsModule (both global).
 */
@Module({
  imports: [AccountBalancesReadModelModule, LogsReadModelModule],
  controllers: [AccountsController],
  providers: [ReadYourWrites, TransferAffiliateQuotaHandler, AdjustQuotaByAdminHandler],
  exports: [ReadYourWrites, AccountBalancesReadModelModule, LogsReadModelModule],
})
export class AccountsModule {}
