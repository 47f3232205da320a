import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { StatementUserNotFoundError } from '../../statement.errors';
import { StatementReader } from '../../statement.reader';
import { csvHeader, csvLine, toStatementLineJson } from '../../statement.serializer';
import { ExportStatementCsvQuery, GetStatementPageQuery, type StatementPage } from './read-statement.query';

@QueryHandler(GetStatementPageQuery)
export class GetStatementPageHandler implements IQueryHandler<GetStatementPageQuery> {
  constructor(private readonly reader: StatementReader) {}

  async execute({ userId, viewer, filters, page, pageSize }: GetStatementPageQuery): Promise<StatementPage> {
    if (viewer === 'admin' && !(await this.reader.userExists(userId))) throw new StatementUserNotFoundError();
    const { rows, total } = await this.reader.page(userId, filters, page, pageSize);
    return { items: rows.map((row) => toStatementLineJson(row, viewer)), total, page, page_size: pageSize };
  }
}

@QueryHandler(ExportStatementCsvQuery)
export class ExportStatementCsvHandler implements IQueryHandler<ExportStatementCsvQuery> {
  constructor(private readonly reader: StatementReader) {}

  /** Checks the user before answering (an error must still be the envelope), then yields the CSV lazily. */
  async execute({ userId, viewer, filters }: ExportStatementCsvQuery): Promise<AsyncIterable<string>> {
    if (viewer === 'admin' && !(await this.reader.userExists(userId))) throw new StatementUserNotFoundError();
    const reader = this.reader;
    return (async function* csv() {
      yield csvHeader();
      for await (const rows of reader.all(userId, filters)) {
        yield rows.map((row) => csvLine(toStatementLineJson(row, viewer))).join('');
      }
    })();
  }
}
