import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountBalanceEntity } from './account-balance.entity';
import { AccountBalancesProjection } from './account-balances.projection';

/** The projection (found by the runner through its decorator) and the entity queries read it with. */
@Module({
  imports: [TypeOrmModule.forFeature([AccountBalanceEntity])],
  providers: [AccountBalancesProjection],
  exports: [TypeOrmModule],
})
export class AccountBalancesReadModelModule {}
