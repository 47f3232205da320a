import { Module } from '@nestjs/common';
import { StatementProjection } from './statement.projection';

/** The statement projection (found by the runner through its decorator); the statement module reads its table with SQL. */
@Module({ providers: [StatementProjection] })
export class StatementReadModelModule {}
