import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { TopUpReader } from '../../topup.reader';
import { type TopUpOrderJson, toTopUpOrderJson } from '../../topup.serializer';
import { ListTopUpOrdersQuery } from './read-topups.query';

@QueryHandler(ListTopUpOrdersQuery)
export class ListTopUpOrdersHandler implements IQueryHandler<ListTopUpOrdersQuery> {
  constructor(private readonly reader: TopUpReader) {}

  async execute({ userId, page }: ListTopUpOrdersQuery): Promise<TopUpOrderJson[]> {
    return (await this.reader.list(userId, page)).map(toTopUpOrderJson);
  }
}
