import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { LogType } from '#projections/read-models/logs/log.entity';
import { filterWhere } from '../../log-query';
import { GetLogStatQuery, type LogStat } from './get-log-stat.query';

@QueryHandler(GetLogStatQuery)
export class GetLogStatHandler implements IQueryHandler<GetLogStatQuery> {
  constructor(private readonly dataSource: DataSource) {}

  async execute({ scope, filters, now }: GetLogStatQuery): Promise<LogStat> {
    const total = filterWhere(filters, scope, { type: false, timeRange: true }).add((p) => `type = ${p}`, LogType.Consume);
    const recent = filterWhere(filters, scope, { type: false, timeRange: false })
      .add((p) => `type = ${p}`, LogType.Consume)
      .add((p) => `created_at >= ${p}::bigint`, now - 60);
    if (total.impossible) return { quota: 0, rpm: 0, tpm: 0 };
    const [quota, rate] = await Promise.all([
      this.dataSource.query(`SELECT coalesce(sum(quota), 0) AS quota FROM logs ${total.sql}`, total.params) as Promise<
        Array<{ quota: string }>
      >,
      this.dataSource.query(
        `SELECT count(*) AS rpm, coalesce(sum(prompt_tokens), 0) + coalesce(sum(completion_tokens), 0) AS tpm FROM logs ${recent.sql}`,
        recent.params,
      ) as Promise<Array<{ rpm: string; tpm: string }>>,
    ]);
    return { quota: Number(quota[0]?.quota ?? 0), rpm: Number(rate[0]?.rpm ?? 0), tpm: Number(rate[0]?.tpm ?? 0) };
  }
}
