import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TokenBalanceEntity } from './token-balance.entity';
import { TokenBalancesProjection } from './token-balances.projection';
import { QuotaAdmissionService } from '../../../../server/src/relay/admission/quota-admission.service';

/** The projection (found by the runner through its decorator) and the entity token queries read with. */
@Module({
  imports: [TypeOrmModule.forFeature([TokenBalanceEntity])],
  providers: [TokenBalancesProjection, QuotaAdmissionService],
  exports: [TypeOrmModule],
})
export class TokenBalancesReadModelModule {}
