import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { SecretBox } from '#server/common/crypto/secret-box';
import { isRowId, parseGoInt } from '#server/modules/users/user-input';
import { openChannelKey } from '../../channel-keys';
import { CHANNEL_VIEW_SELECT, type ChannelJson, type ChannelViewRow, toChannelJson } from '../../channel.serializer';
import { channelOrder } from '../list-channels/list-channels.handler';
import { SearchChannelsQuery } from './search-channels.query';

/** LIKE patterns match the typed text literally (new-api passes `%` and `_` through as wildcards). */
const literal = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

@QueryHandler(SearchChannelsQuery)
export class SearchChannelsHandler implements IQueryHandler<SearchChannelsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  async execute({ keyword, group, model, idSort, matchKey }: SearchChannelsQuery): Promise<ChannelJson[]> {
    // No stored text holds NUL (Postgres text cannot), so such a search matches nothing.
    if ([keyword, group, model].some((text) => text.includes('\u0000'))) return [];
    const id = parseGoInt(keyword);
    const parameters: unknown[] = [isRowId(id) ? id : 0, `%${literal(keyword)}%`, `%${literal(model)}%`];
    let where = `(c.id = $1 OR c.name LIKE $2`;
    // Only root may find a channel by its key: for an admin the answer would confirm a guessed key.
    if (matchKey && keyword !== '') {
      parameters.push(await this.idsWithKey(keyword));
      where += ` OR c.id = ANY($${parameters.length}::int[])`;
    }
    where += `) AND c.models LIKE $3`;
    if (group) {
      parameters.push(`%,${literal(group)},%`);
      where += ` AND (',' || c."group" || ',') LIKE $${parameters.length}`;
    }
    const rows: ChannelViewRow[] = await this.dataSource.query(`${CHANNEL_VIEW_SELECT} WHERE ${where} ${channelOrder(idSort)}`, parameters);
    return rows.map((row) => toChannelJson(row));
  }

  /**
   * The channels whose key is exactly `keyword`. Keys are sealed with a random IV, so the database cannot compare
   * them: each is opened here (microseconds per channel; root's search only, never the relay's path). A key that
   * does not open matches nothing.
   */
  private async idsWithKey(keyword: string): Promise<number[]> {
    const rows: Array<{ id: number; key: string }> = await this.dataSource.query(`SELECT id, key FROM channels WHERE key <> ''`);
    return rows
      .filter((row) => {
        try {
          return openChannelKey(this.box, row.key) === keyword;
        } catch {
          return false;
        }
      })
      .map((row) => row.id);
  }
}
