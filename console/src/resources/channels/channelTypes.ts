/**
 * The channel types of spec 1 section 3, in the order the editor offers them, with what each type's form needs:
 * the key format (shown as the key's placeholder), whether `base_url` is asked for, and what `other` means.
 * Texts are i18n keys under app.channels.
 */
export interface ChannelTypeInfo {
  value: number;
  name: string;
  /** i18n key of a name that is words rather than a brand. */
  nameKey?: string;
  /** i18n key of the key field's placeholder (a format for the types that combine several credentials). */
  keyHint: string;
  /** The key is one credential even across lines (Vertex AI's JSON): no channel per line. */
  keyWhole?: boolean;
  /** i18n key of the base URL's hint; absent: the URL is the optional proxy address. */
  baseUrlHint?: string;
  /** The base URL must be given. */
  baseUrlRequired?: boolean;
  /** What `other` holds for this type (i18n keys for its label and placeholder); absent: no `other` field. */
  other?: { label: string; placeholder: string; defaultValue?: string; multiline?: boolean };
  /** i18n key of a notice shown above the form. */
  notice?: string;
  /** The OpenAI organisation field applies. */
  organization?: boolean;
  /** Model fetching from the upstream works (OpenAI interface format only). */
  fetchModels?: boolean;
  /** No adapter speaks it: the server refuses to create a channel of it, so it cannot be picked (only shown when saved). */
  noAdapter?: boolean;
}

const KEY = 'app.channels.key_hints';
const OTHER = 'app.channels.other';

export const CHANNEL_TYPES: ChannelTypeInfo[] = [
  { value: 1, name: 'OpenAI', keyHint: `${KEY}.default`, organization: true, fetchModels: true },
  { value: 2, name: 'Midjourney Proxy', keyHint: `${KEY}.default`, baseUrlHint: 'app.channels.base_url_hints.midjourney' },
  { value: 5, name: 'Midjourney Proxy Plus', keyHint: `${KEY}.default`, baseUrlHint: 'app.channels.base_url_hints.midjourney' },
  { value: 36, name: 'Suno API', keyHint: `${KEY}.default`, baseUrlHint: 'app.channels.base_url_hints.suno' },
  { value: 4, name: 'Ollama', keyHint: `${KEY}.default`, baseUrlHint: 'app.channels.base_url_hints.ollama' },
  { value: 14, name: 'Anthropic Claude', keyHint: `${KEY}.default` },
  {
    value: 33,
    name: 'AWS Claude',
    keyHint: `${KEY}.aws`,
  },
  {
    value: 41,
    name: 'Vertex AI',
    keyHint: `${KEY}.vertex`,
    keyWhole: true,
    other: { label: `${OTHER}.vertex_label`, placeholder: `${OTHER}.vertex_placeholder`, multiline: true },
    notice: 'app.channels.notices.vertex',
  },
  {
    value: 3,
    name: 'Azure OpenAI',
    keyHint: `${KEY}.azure`,
    baseUrlHint: 'app.channels.base_url_hints.azure',
    baseUrlRequired: true,
    other: { label: `${OTHER}.azure_label`, placeholder: `${OTHER}.azure_placeholder`, defaultValue: '2023-06-01-preview' },
    notice: 'app.channels.notices.azure',
  },
  { value: 24, name: 'Google Gemini', keyHint: `${KEY}.default` },
  { value: 34, name: 'Cohere', keyHint: `${KEY}.default` },
  { value: 15, name: 'Baidu Wenxin', keyHint: `${KEY}.baidu` },
  {
    value: 17,
    name: 'Alibaba Qwen',
    keyHint: `${KEY}.default`,
    other: { label: `${OTHER}.ali_label`, placeholder: `${OTHER}.ali_placeholder` },
  },
  {
    value: 18,
    name: 'iFlytek Spark',
    keyHint: `${KEY}.spark`,
    other: { label: `${OTHER}.spark_label`, placeholder: `${OTHER}.spark_placeholder`, defaultValue: 'v2.1' },
  },
  { value: 16, name: 'Zhipu ChatGLM', keyHint: `${KEY}.zhipu` },
  { value: 26, name: 'Zhipu GLM-4V', keyHint: `${KEY}.zhipu` },
  { value: 11, name: 'Google PaLM2', keyHint: `${KEY}.default` },
  {
    value: 39,
    name: 'Cloudflare',
    keyHint: `${KEY}.default`,
    other: { label: `${OTHER}.cloudflare_label`, placeholder: `${OTHER}.cloudflare_placeholder` },
  },
  { value: 25, name: 'Moonshot', keyHint: `${KEY}.default` },
  { value: 19, name: '360', keyHint: `${KEY}.default` },
  { value: 23, name: 'Tencent Hunyuan', keyHint: `${KEY}.tencent` },
  { value: 31, name: 'Yi', keyHint: `${KEY}.default` },
  { value: 35, name: 'MiniMax', keyHint: `${KEY}.default` },
  { value: 37, name: 'Dify', keyHint: `${KEY}.default`, baseUrlHint: 'app.channels.base_url_hints.dify' },
  { value: 38, name: 'Jina', keyHint: `${KEY}.default` },
  { value: 40, name: 'SiliconCloud', keyHint: `${KEY}.default` },
  {
    value: 8,
    name: 'Custom',
    nameKey: 'app.channels.type_names.custom',
    keyHint: `${KEY}.default`,
    baseUrlHint: 'app.channels.base_url_hints.custom',
    baseUrlRequired: true,
  },
  {
    value: 22,
    name: 'FastGPT',
    nameKey: 'app.channels.type_names.fastgpt',
    keyHint: `${KEY}.fastgpt`,
    baseUrlHint: 'app.channels.base_url_hints.fastgpt',
    baseUrlRequired: true,
  },
  {
    value: 21,
    name: 'AI Proxy',
    nameKey: 'app.channels.type_names.ai_proxy',
    noAdapter: true,
    keyHint: `${KEY}.default`,
    other: { label: `${OTHER}.knowledge_label`, placeholder: `${OTHER}.knowledge_placeholder` },
  },
];

export const channelTypeInfo = (type: number): ChannelTypeInfo | undefined => CHANNEL_TYPES.find((info) => info.value === type);

/** The name shown for a type; 0 and types this version does not know are "unknown". */
export const channelTypeName = (type: number, translate: (key: string) => string): string => {
  const info = channelTypeInfo(type);
  if (!info) return translate('app.channels.type_names.unknown');
  return info.nameKey ? translate(info.nameKey) : info.name;
};
