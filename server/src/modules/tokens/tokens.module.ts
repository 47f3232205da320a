import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokenBalancesReadModelModule } from '#projections/read-models/token-balances/token-balances-read-model.module';
import { AccountsModule } from '../accounts/accounts.module';
import { TokenAuthCache } from './token-auth/token-auth-cache';
import { TokenAuthenticator } from './token-auth/token-authenticator';
import { TokenEntity } from './token.entity';
import { TokenGroupPolicy } from './token-groups';
import { TokenReader } from './token.reader';
import { TokensController } from './tokens.controller';
import { ChangeTokenStatusHandler } from './usecases/change-token-status/change-token-status.handler';
import { CreateTokenHandler } from './usecases/create-token/create-token.handler';
import { DeleteTokenHandler } from './usecases/delete-token/delete-token.handler';
import { GetTokenHandler } from './usecases/get-token/get-token.handler';
import { ListTokensHandler } from './usecases/list-tokens/list-tokens.handler';
import { MarkTokenLapsedHandler } from './usecases/mark-token-lapsed/mark-token-lapsed.handler';
import { SearchTokensHandler } from './usecases/search-tokens/search-tokens.handler';
import { UpdateTokenHandler } from './usecases/update-token/update-token.handler';

/**
 * API tokens: the console routes, their ledger side (TokenQuotaAllotted on `token-{id}`, folded with the relay's
 * QuotaConsumed by the token-balances projection) and the relay's TokenAuthenticator. Quota admission
 * (QUOTA_ADMISSION) comes from the global AdmissionModule (one per process: it holds the quota blocks).
 */
@Module({
  imports: [TypeOrmModule.forFeature([TokenEntity]), TokenBalancesReadModelModule, AccountsModule],
  controllers: [TokensController],
  providers: [
    TokenReader,
    TokenGroupPolicy,
    TokenAuthCache,
    TokenAuthenticator,
    CreateTokenHandler,
    UpdateTokenHandler,
    ChangeTokenStatusHandler,
    DeleteTokenHandler,
    MarkTokenLapsedHandler,
    ListTokensHandler,
    SearchTokensHandler,
    GetTokenHandler,
  ],
  exports: [TokenAuthenticator, TokenGroupPolicy, TokenReader],
})
export class TokensModule {}
