import { Module } from '@nestjs/common';
import { RedemptionsReadModelModule } from '#projections/read-models/redemptions/redemptions-read-model.module';
import { AccountsModule } from '../accounts/accounts.module';
import { RedeemController, RedemptionsController } from './redemptions.controller';
import { RedemptionReader } from './redemption.reader';
import { ChangeRedemptionCodeHandler } from './usecases/change-redemption-code/change-redemption-code.handler';
import { IssueRedemptionCodesHandler } from './usecases/issue-redemption-codes/issue-redemption-codes.handler';
import {
  GetRedemptionHandler,
  ListRedemptionsHandler,
  SearchRedemptionsHandler,
} from './usecases/read-redemptions/read-redemptions.handler';
import { RedeemRedemptionCodeHandler } from './usecases/redeem-redemption-code/redeem-redemption-code.handler';

/**
 * Redemption codes: the admin routes and POST /api/user/topup, their ledger side (`redemption-{id}` streams, the
 * QuotaRedeemed credit on the account) and the redemptions read model the reads and the key lookup use.
 */
@Module({
  imports: [RedemptionsReadModelModule, AccountsModule],
  controllers: [RedemptionsController, RedeemController],
  providers: [
    RedemptionReader,
    IssueRedemptionCodesHandler,
    ChangeRedemptionCodeHandler,
    RedeemRedemptionCodeHandler,
    ListRedemptionsHandler,
    SearchRedemptionsHandler,
    GetRedemptionHandler,
  ],
})
export class RedemptionsModule {}
