import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { RedemptionNotFoundError } from '../../redemption.errors';
import { RedemptionReader } from '../../redemption.reader';
import { type RedemptionJson, toRedemptionJson } from '../../redemption.serializer';
import { GetRedemptionQuery, ListRedemptionsQuery, SearchRedemptionsQuery } from './read-redemptions.query';

@QueryHandler(ListRedemptionsQuery)
export class ListRedemptionsHandler implements IQueryHandler<ListRedemptionsQuery> {
  constructor(private readonly reader: RedemptionReader) {}

  async execute({ page }: ListRedemptionsQuery): Promise<RedemptionJson[]> {
    return (await this.reader.list(page)).map(toRedemptionJson);
  }
}

@QueryHandler(SearchRedemptionsQuery)
export class SearchRedemptionsHandler implements IQueryHandler<SearchRedemptionsQuery> {
  constructor(private readonly reader: RedemptionReader) {}

  async execute({ keyword }: SearchRedemptionsQuery): Promise<RedemptionJson[]> {
    return (await this.reader.search(keyword)).map(toRedemptionJson);
  }
}

@QueryHandler(GetRedemptionQuery)
export class GetRedemptionHandler implements IQueryHandler<GetRedemptionQuery> {
  constructor(private readonly reader: RedemptionReader) {}

  async execute({ id }: GetRedemptionQuery): Promise<RedemptionJson> {
    const row = await this.reader.find(id);
    if (!row) throw new RedemptionNotFoundError();
    return toRedemptionJson(row);
  }
}
