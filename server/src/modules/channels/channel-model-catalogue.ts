import { ChannelType } from '../../upstreams/channel-types';

/**
 * The built-in model lists of each channel type (new-api's adaptor lists), behind GET /api/models (per
 * type, for the channel form's model picker) and GET /api/channel/models (all of them, OpenAI model objects).
 * These are suggestions for the form only: what a channel serves is what its `models` says.
 */
interface CatalogueEntry {
  ownedBy: string;
  models: readonly string[];
}

const OPENAI_MODELS = [
  'gpt-3.5-turbo',
  'gpt-3.5-turbo-0613',
  'gpt-3.5-turbo-1106',
  'gpt-3.5-turbo-0125',
  'gpt-3.5-turbo-16k',
  'gpt-3.5-turbo-16k-0613',
  'gpt-3.5-turbo-instruct',
  'gpt-4',
  'gpt-4-0613',
  'gpt-4-1106-preview',
  'gpt-4-0125-preview',
  'gpt-4-32k',
  'gpt-4-32k-0613',
  'gpt-4-turbo-preview',
  'gpt-4-turbo',
  'gpt-4-turbo-2024-04-09',
  'gpt-4-vision-preview',
  'chatgpt-4o-latest',
  'gpt-4o',
  'gpt-4o-2024-05-13',
  'gpt-4o-2024-08-06',
  'gpt-4o-mini',
  'gpt-4o-mini-2024-07-18',
  'o1-preview',
  'o1-preview-2024-09-12',
  'o1-mini',
  'o1-mini-2024-09-12',
  'text-embedding-ada-002',
  'text-embedding-3-small',
  'text-embedding-3-large',
  'text-curie-001',
  'text-babbage-001',
  'text-ada-001',
  'text-moderation-latest',
  'text-moderation-stable',
  'text-davinci-edit-001',
  'davinci-002',
  'babbage-002',
  'dall-e-2',
  'dall-e-3',
  'whisper-1',
  'tts-1',
  'tts-1-1106',
  'tts-1-hd',
  'tts-1-hd-1106',
] as const;

const CLAUDE_MODELS = [
  'claude-instant-1.2',
  'claude-2',
  'claude-2.0',
  'claude-2.1',
  'claude-3-sonnet-20240229',
  'claude-3-opus-20240229',
  'claude-3-haiku-20240307',
  'claude-3-5-sonnet-20240620',
] as const;

const GEMINI_MODELS = [
  'gemini-1.0-pro-latest',
  'gemini-1.0-pro-001',
  'gemini-1.5-pro-latest',
  'gemini-1.5-pro-exp-0827',
  'gemini-1.5-flash-latest',
  'gemini-1.5-flash-exp-0827',
  'gemini-ultra',
  'gemini-1.0-pro-vision-latest',
  'gemini-1.0-pro-vision-001',
] as const;

export const MIDJOURNEY_MODELS = [
  'mj_imagine',
  'mj_variation',
  'mj_reroll',
  'mj_blend',
  'mj_upscale',
  'mj_describe',
  'mj_upload',
  'mj_shorten',
  'mj_modal',
  'mj_zoom',
  'mj_custom_zoom',
  'mj_pan',
  'mj_high_variation',
  'mj_low_variation',
  'mj_inpaint',
  'swap_face',
] as const;

const CATALOGUE: ReadonlyArray<readonly [number, CatalogueEntry]> = [
  [ChannelType.OpenAI, { ownedBy: 'openai', models: OPENAI_MODELS }],
  [ChannelType.Midjourney, { ownedBy: 'midjourney', models: MIDJOURNEY_MODELS }],
  [ChannelType.Azure, { ownedBy: 'openai', models: OPENAI_MODELS }],
  [ChannelType.Ollama, { ownedBy: 'ollama', models: ['llama3-7b'] }],
  [ChannelType.MidjourneyPlus, { ownedBy: 'midjourney', models: MIDJOURNEY_MODELS }],
  [ChannelType.Custom, { ownedBy: 'openai', models: OPENAI_MODELS }],
  [ChannelType.PaLM, { ownedBy: 'google palm', models: ['PaLM-2'] }],
  [ChannelType.Anthropic, { ownedBy: 'claude', models: CLAUDE_MODELS }],
  [
    ChannelType.Baidu,
    {
      ownedBy: 'baidu',
      models: [
        'ERNIE-4.0-8K',
        'ERNIE-3.5-8K',
        'ERNIE-3.5-8K-0205',
        'ERNIE-3.5-8K-1222',
        'ERNIE-Bot-8K',
        'ERNIE-3.5-4K-0205',
        'ERNIE-Speed-8K',
        'ERNIE-Speed-128K',
        'ERNIE-Lite-8K-0922',
        'ERNIE-Lite-8K-0308',
        'ERNIE-Tiny-8K',
        'BLOOMZ-7B',
        'Embedding-V1',
        'bge-large-zh',
        'bge-large-en',
        'tao-8k',
      ],
    },
  ],
  [ChannelType.Zhipu, { ownedBy: 'zhipu', models: ['chatglm_turbo', 'chatglm_pro', 'chatglm_std', 'chatglm_lite'] }],
  [ChannelType.Ali, { ownedBy: 'ali', models: ['qwen-turbo', 'qwen-plus', 'qwen-max', 'qwen-max-longcontext', 'text-embedding-v1'] }],
  [
    ChannelType.Xunfei,
    { ownedBy: 'xunfei', models: ['SparkDesk', 'SparkDesk-v1.1', 'SparkDesk-v2.1', 'SparkDesk-v3.1', 'SparkDesk-v3.5', 'SparkDesk-v4.0'] },
  ],
  [
    ChannelType.Zhinao360,
    { ownedBy: '360', models: ['360GPT_S2_V9', 'embedding-bert-512-v1', 'embedding_s1_v1', 'semantic_similarity_s1_v1'] },
  ],
  [ChannelType.FastGPT, { ownedBy: 'openai', models: OPENAI_MODELS }],
  [ChannelType.Tencent, { ownedBy: 'tencent', models: ['hunyuan-lite', 'hunyuan-standard', 'hunyuan-standard-256K', 'hunyuan-pro'] }],
  [ChannelType.Gemini, { ownedBy: 'google gemini', models: GEMINI_MODELS }],
  [ChannelType.Moonshot, { ownedBy: 'moonshot', models: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'] }],
  [ChannelType.ZhipuV4, { ownedBy: 'zhipu_4v', models: ['glm-4', 'glm-4v', 'glm-3-turbo', 'glm-4-alltools'] }],
  [
    ChannelType.Yi,
    {
      ownedBy: 'lingyiwanwu',
      models: [
        'yi-large',
        'yi-medium',
        'yi-vision',
        'yi-medium-200k',
        'yi-spark',
        'yi-large-rag',
        'yi-large-turbo',
        'yi-large-preview',
        'yi-large-rag-preview',
      ],
    },
  ],
  [ChannelType.Aws, { ownedBy: 'aws', models: CLAUDE_MODELS.filter((model) => model !== 'claude-2') }],
  [
    ChannelType.Cohere,
    {
      ownedBy: 'cohere',
      models: [
        'command-r',
        'command-r-plus',
        'command-light',
        'command-light-nightly',
        'command',
        'command-nightly',
        'rerank-english-v3.0',
        'rerank-multilingual-v3.0',
        'rerank-english-v2.0',
        'rerank-multilingual-v2.0',
      ],
    },
  ],
  [ChannelType.MiniMax, { ownedBy: 'minimax', models: ['abab6.5-chat', 'abab6.5s-chat', 'abab6-chat', 'abab5.5-chat', 'abab5.5s-chat'] }],
  [ChannelType.SunoAPI, { ownedBy: 'suno', models: ['suno_music', 'suno_lyrics'] }],
  [ChannelType.Dify, { ownedBy: 'dify', models: ['dify'] }],
  [ChannelType.Jina, { ownedBy: 'jina', models: ['jina-clip-v1', 'jina-reranker-v2-base-multilingual'] }],
  [
    ChannelType.Cloudflare,
    {
      ownedBy: 'cloudflare',
      models: [
        '@cf/meta/llama-3.1-8b-instruct',
        '@cf/meta/llama-2-7b-chat-fp16',
        '@cf/meta/llama-2-7b-chat-int8',
        '@cf/mistral/mistral-7b-instruct-v0.1',
        '@cf/qwen/qwen1.5-14b-chat-awq',
        '@cf/openai/whisper',
      ],
    },
  ],
  [
    ChannelType.SiliconCloud,
    {
      ownedBy: 'siliconflow',
      models: [
        'THUDM/glm-4-9b-chat',
        'Qwen/Qwen2-7B-Instruct',
        'Qwen/Qwen2-72B-Instruct',
        'deepseek-ai/DeepSeek-V2.5',
        'BAAI/bge-large-zh-v1.5',
        'BAAI/bge-m3',
        'BAAI/bge-reranker-v2-m3',
      ],
    },
  ],
  [
    ChannelType.VertexAI,
    { ownedBy: 'vertex-ai', models: [...CLAUDE_MODELS.filter((model) => model.startsWith('claude-3')), ...GEMINI_MODELS] },
  ],
];

/** GET /api/models: channel type (as a string key) → its built-in models. */
export function modelsByChannelType(): Record<string, string[]> {
  const map: Record<string, string[]> = {};
  for (const [type, entry] of CATALOGUE) map[String(type)] = [...entry.models];
  return map;
}

/** The permission object new-api attaches to every model (a fixed one). */
const MODEL_PERMISSION = Object.freeze({
  id: 'modelperm-LwHkVFn8AcMItP432fKKDIKJ',
  object: 'model_permission',
  created: 1626777600,
  allow_create_engine: true,
  allow_sampling: true,
  allow_logprobs: true,
  allow_search_indices: false,
  allow_view: true,
  allow_fine_tuning: false,
  organization: '*',
  group: null,
  is_blocking: false,
});

export interface OpenAIModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  permission: Array<typeof MODEL_PERMISSION>;
  root: string;
  parent: null;
}

export function modelObject(id: string, ownedBy: string): OpenAIModelObject {
  return { id, object: 'model', created: 1626777600, owned_by: ownedBy, permission: [{ ...MODEL_PERMISSION }], root: id, parent: null };
}

/** GET /api/channel/models: every built-in model once, owned by the first type that lists it. */
export function allCatalogueModels(): OpenAIModelObject[] {
  const seen = new Map<string, OpenAIModelObject>();
  for (const [, entry] of CATALOGUE) {
    for (const model of entry.models) if (!seen.has(model)) seen.set(model, modelObject(model, entry.ownedBy));
  }
  return [...seen.values()];
}

let owners: Map<string, string> | null = null;

/** The owner the catalogue names for a model (the first type that lists it), else 'custom' (as /v1/models answers). */
export function ownerOf(model: string): string {
  if (!owners) {
    owners = new Map();
    for (const [, entry] of CATALOGUE) for (const name of entry.models) if (!owners.has(name)) owners.set(name, entry.ownedBy);
  }
  return owners.get(model) ?? 'custom';
}
