import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokenBalanceEntity } from './token-balance.entity';
import { TokenBalancesProjection } from './token-balances.projection';

/** The projection (found by the runner through its decorator) and the entity token queries read with. */
@Module({
  imports: [TypeOrmModule.forFeature([TokenBalanceEntity])],
  providers: [TokenBalancesProjection],
  exports: [TypeOrmModule],
})
export class TokenBalancesReadModelModule {}
