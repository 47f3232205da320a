import { type IQueryHandler, QueryHandler } from '@nestjs/cqrs';
import { DataSource } from 'typeorm';
import { redactKey } from '#server/common/crypto/redact';
import { SecretBox } from '#server/common/crypto/secret-box';
import { ChannelType } from '#server/upstreams/channel-types';
import { requestJson, ThirdPartyInvalidResponseError } from '#server/modules/auth/third-party/http-json';
import { ChannelEntity } from '../../channel.entity';
import { openChannelKey } from '../../channel-keys';
import { ChannelInputError, ChannelNotFoundError, FetchModelsFailedError } from '../../channel.errors';
import { normalizeBaseUrl } from '../../channel-input';
import { FetchUpstreamModelsQuery } from './fetch-upstream-models.query';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com';
const FETCH_TIMEOUT_MS = 10_000;

/** `{data: [{id}, …]}` as OpenAI answers /v1/models; anything else is not a model list. */
function modelIds(body: unknown): string[] | null {
  const data = (body as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) return null;
  const ids: string[] = [];
  for (const entry of data) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === 'string' && id && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

@QueryHandler(FetchUpstreamModelsQuery)
export class FetchUpstreamModelsHandler implements IQueryHandler<FetchUpstreamModelsQuery> {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  async execute({ source }: FetchUpstreamModelsQuery): Promise<string[]> {
    let type: number;
    let baseUrl: string;
    let key: string;
    if ('channelId' in source) {
      const channel = await this.dataSource.getRepository(ChannelEntity).findOne({ where: { id: source.channelId } });
      if (!channel) throw new ChannelNotFoundError();
      ({ type, baseUrl } = channel);
      key = openChannelKey(this.box, channel.key);
    } else {
      ({ type, baseUrl, key } = source);
    }
    if (type !== ChannelType.OpenAI) throw new ChannelInputError('fetch_models_openai_only');
    if (!key.trim()) throw new ChannelInputError('key_required_to_fetch');
    // A multi-line (batch) key: the first key speaks for all of them.
    const bearer =
      key
        .split('\n')
        .map((line) => line.trim())
        .find(Boolean) ?? '';
    const url = `${normalizeBaseUrl(baseUrl) || OPENAI_DEFAULT_BASE_URL}/v1/models`;
    if (!/^https?:\/\//i.test(url)) throw new FetchModelsFailedError('base_url is not an http(s) address');
    let answer: { status: number; body: unknown };
    try {
      answer = await requestJson({ method: 'GET', url, headers: { authorization: `Bearer ${bearer}` }, timeoutMs: FETCH_TIMEOUT_MS });
    } catch (error) {
      throw new FetchModelsFailedError(
        redactKey(
          error instanceof ThirdPartyInvalidResponseError ? error.message : `upstream unreachable (${(error as Error).message})`,
          key,
        ),
      );
    }
    if (answer.status !== 200) {
      const message = (answer.body as { error?: { message?: unknown } } | null)?.error?.message;
      // Some upstreams repeat the key they were sent: the answer carries the message without it.
      throw new FetchModelsFailedError(redactKey(`HTTP ${answer.status}${typeof message === 'string' ? ` ${message}` : ''}`, key));
    }
    const ids = modelIds(answer.body);
    if (!ids) throw new FetchModelsFailedError('the answer has no model list');
    return ids;
  }
}
