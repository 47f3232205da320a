import { DomainError } from '../../common/http/errors';

/**
 * Messages of the channels API. The console form's rules are checked on the server too, with the texts the
 * console shows; the Vertex AI rules (`other` names the region; as JSON it needs a `default` key) are new-api's
 * server's own.
 */
export const CHANNEL_MESSAGES = {
  name_and_key_required: '请填写渠道名称和渠道密钥！',
  models_required: '请至少选择一个模型！',
  model_mapping_invalid: '模型映射必须是合法的 JSON 格式！',
  status_code_mapping_invalid: '状态码复写必须是合法的 JSON 格式！',
  setting_invalid: '渠道额外设置必须是合法的 JSON 格式！',
  param_override_invalid: '参数覆盖必须是合法的 JSON 格式！',
  header_override_invalid: '请求头覆盖必须是合法的 JSON 格式！',
  vertex_region_required: '部署地区不能为空',
  vertex_region_default: '部署地区必须包含default字段',
  type_without_adapter: '该渠道类型（AI Proxy 知识库）没有可用的上游适配器，无法转发任何请求，请选择其他类型',
  channel_not_found: '渠道不存在',
  batch_selection_required: '请先选择要删除的通道！',
  fetch_models_openai_only: '仅支持 OpenAI 接口格式',
  fetch_models_failed: '获取模型列表失败',
  key_required_to_fetch: '请填写渠道密钥！',
} as const;

export type ChannelMessageCode = keyof typeof CHANNEL_MESSAGES;

export class ChannelInputError extends DomainError {
  constructor(code: ChannelMessageCode) {
    super(CHANNEL_MESSAGES[code], code);
  }
}

export class ChannelNotFoundError extends DomainError {
  constructor() {
    super(CHANNEL_MESSAGES.channel_not_found, 'channel_not_found');
  }
}

/** The upstream model list could not be read; the detail says why (status, network error, body). */
export class FetchModelsFailedError extends DomainError {
  constructor(detail: string) {
    super(`${CHANNEL_MESSAGES.fetch_models_failed}: ${detail}`, 'fetch_models_failed');
  }
}
