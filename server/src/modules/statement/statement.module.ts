import { Module } from '@nestjs/common';
import { StatementReadModelModule } from '#projections/read-models/statement/statement-read-model.module';
import { StatementController } from './statement.controller';
import { StatementReader } from './statement.reader';
import { ExportStatementCsvHandler, GetStatementPageHandler } from './usecases/read-statement/read-statement.handler';

/** The account statement: its read model (the statement projection) and the routes that read it. */
@Module({
  imports: [StatementReadModelModule],
  controllers: [StatementController],
  providers: [StatementReader, GetStatementPageHandler, ExportStatementCsvHandler],
})
export class StatementModule {}
