import { Query } from '@nestjs/cqrs';

export type FetchModelsSource = { channelId: number } | { type: number; baseUrl: string; key: string };

/**
 * The model ids an OpenAI-format upstream lists at `{base_url}/v1/models`, asked with the channel's key (GET
 * /api/channel/fetch_models/:id) or with the key typed into the creation form (POST /api/channel/fetch_models).
 */
export class FetchUpstreamModelsQuery extends Query<string[]> {
  constructor(readonly source: FetchModelsSource) {
    super();
  }
}
