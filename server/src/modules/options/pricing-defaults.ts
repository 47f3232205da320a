/**
 * The built-in pricing tables of new-api v0.3.0.0: the defaults of the ModelRatio,
 * ModelPrice and CompletionRatio options, and what POST /api/option/rest_model_ratio restores. The relay reads
 * the live options; these tables are only their starting point.
 *
 * Ratio 1 = $0.002 per 1K prompt tokens ($2 per 1M). RMB-priced models are written as
 * RMB-per-1K × (500 / 7.3), new-api's constants USD = 500 and USD2RMB = 7.3.
 */
const USD = 500;
const USD_TO_RMB = 7.3;
const RMB = USD / USD_TO_RMB;

export const DEFAULT_MODEL_RATIO: Readonly<Record<string, number>> = Object.freeze({
  'gpt-4-gizmo-*': 15,
  'gpt-4o-gizmo-*': 2.5,
  'gpt-4-all': 15,
  'gpt-4o-all': 15,
  'gpt-4': 15,
  'gpt-4-0613': 15,
  'gpt-4-32k': 30,
  'gpt-4-32k-0613': 30,
  'gpt-4-1106-preview': 5, // $10 / 1M tokens
  'gpt-4-0125-preview': 5,
  'gpt-4-turbo-preview': 5,
  'gpt-4-vision-preview': 5,
  'gpt-4-1106-vision-preview': 5,
  'chatgpt-4o-latest': 2.5, // $5 / 1M tokens
  'gpt-4o': 2.5,
  'gpt-4o-2024-05-13': 2.5,
  'gpt-4o-2024-08-06': 1.25, // $2.5 / 1M tokens
  'o1-preview': 7.5,
  'o1-preview-2024-09-12': 7.5,
  'o1-mini': 1.5,
  'o1-mini-2024-09-12': 1.5,
  'gpt-4o-mini': 0.075,
  'gpt-4o-mini-2024-07-18': 0.075,
  'gpt-4-turbo': 5,
  'gpt-4-turbo-2024-04-09': 5,
  'gpt-3.5-turbo': 0.25,
  'gpt-3.5-turbo-0613': 0.75,
  'gpt-3.5-turbo-16k': 1.5,
  'gpt-3.5-turbo-16k-0613': 1.5,
  'gpt-3.5-turbo-instruct': 0.75,
  'gpt-3.5-turbo-1106': 0.5,
  'gpt-3.5-turbo-0125': 0.25,
  'babbage-002': 0.2,
  'davinci-002': 1,
  'text-ada-001': 0.2,
  'text-babbage-001': 0.25,
  'text-curie-001': 1,
  'text-davinci-edit-001': 10,
  'code-davinci-edit-001': 10,
  'whisper-1': 15, // $0.006 / minute ≈ $0.03 / 1K tokens
  'tts-1': 7.5, // $0.015 / 1K characters
  'tts-1-1106': 7.5,
  'tts-1-hd': 15,
  'tts-1-hd-1106': 15,
  davinci: 10,
  curie: 10,
  babbage: 10,
  ada: 10,
  'text-embedding-3-small': 0.01,
  'text-embedding-3-large': 0.065,
  'text-embedding-ada-002': 0.05,
  'text-search-ada-doc-001': 10,
  'text-moderation-stable': 0.1,
  'text-moderation-latest': 0.1,
  'claude-instant-1': 0.4, // $0.8 / 1M tokens
  'claude-2.0': 4,
  'claude-2.1': 4,
  'claude-3-haiku-20240307': 0.125,
  'claude-3-sonnet-20240229': 1.5,
  'claude-3-5-sonnet-20240620': 1.5,
  'claude-3-opus-20240229': 7.5,
  'ERNIE-4.0-8K': 0.12 * RMB,
  'ERNIE-3.5-8K': 0.012 * RMB,
  'ERNIE-3.5-8K-0205': 0.024 * RMB,
  'ERNIE-3.5-8K-1222': 0.012 * RMB,
  'ERNIE-Bot-8K': 0.024 * RMB,
  'ERNIE-3.5-4K-0205': 0.012 * RMB,
  'ERNIE-Speed-8K': 0.004 * RMB,
  'ERNIE-Speed-128K': 0.004 * RMB,
  'ERNIE-Lite-8K-0922': 0.008 * RMB,
  'ERNIE-Lite-8K-0308': 0.003 * RMB,
  'ERNIE-Tiny-8K': 0.001 * RMB,
  'BLOOMZ-7B': 0.004 * RMB,
  'Embedding-V1': 0.002 * RMB,
  'bge-large-zh': 0.002 * RMB,
  'bge-large-en': 0.002 * RMB,
  'tao-8k': 0.002 * RMB,
  'PaLM-2': 1,
  'gemini-pro': 1,
  'gemini-pro-vision': 1,
  'gemini-1.0-pro-vision-001': 1,
  'gemini-1.0-pro-001': 1,
  'gemini-1.5-pro-latest': 1.75, // $3.5 / 1M tokens
  'gemini-1.5-pro-exp-0827': 1.75,
  'gemini-1.5-flash-latest': 1,
  'gemini-1.5-flash-exp-0827': 1,
  'gemini-1.0-pro-latest': 1,
  'gemini-1.0-pro-vision-latest': 1,
  'gemini-ultra': 1,
  chatglm_turbo: 0.3572, // ¥0.005 / 1K tokens
  chatglm_pro: 0.7143,
  chatglm_std: 0.3572,
  chatglm_lite: 0.1429,
  'glm-4': 7.143,
  'glm-4v': 0.05 * RMB,
  'glm-4-alltools': 0.1 * RMB,
  'glm-3-turbo': 0.3572,
  'glm-4-plus': 0.05 * RMB,
  'glm-4-0520': 0.1 * RMB,
  'glm-4-air': 0.001 * RMB,
  'glm-4-airx': 0.01 * RMB,
  'glm-4-long': 0.001 * RMB,
  'glm-4-flash': 0,
  'glm-4v-plus': 0.01 * RMB,
  'qwen-turbo': 0.8572, // ¥0.012 / 1K tokens
  'qwen-plus': 10,
  'text-embedding-v1': 0.05,
  'SparkDesk-v1.1': 1.2858,
  'SparkDesk-v2.1': 1.2858,
  'SparkDesk-v3.1': 1.2858,
  'SparkDesk-v3.5': 1.2858,
  'SparkDesk-v4.0': 1.2858,
  '360GPT_S2_V9': 0.8572,
  '360gpt-turbo': 0.0858,
  '360gpt-turbo-responsibility-8k': 0.8572,
  '360gpt-pro': 0.8572,
  '360gpt2-pro': 0.8572,
  'embedding-bert-512-v1': 0.0715,
  embedding_s1_v1: 0.0715,
  semantic_similarity_s1_v1: 0.0715,
  hunyuan: 7.143,
  'yi-34b-chat-0205': 0.18,
  'yi-34b-chat-200k': 0.864,
  'yi-vl-plus': 0.432,
  'yi-large': (20 / 1000) * RMB,
  'yi-medium': (2.5 / 1000) * RMB,
  'yi-vision': (6 / 1000) * RMB,
  'yi-medium-200k': (12 / 1000) * RMB,
  'yi-spark': (1 / 1000) * RMB,
  'yi-large-rag': (25 / 1000) * RMB,
  'yi-large-turbo': (12 / 1000) * RMB,
  'yi-large-preview': (20 / 1000) * RMB,
  'yi-large-rag-preview': (25 / 1000) * RMB,
  command: 0.5,
  'command-nightly': 0.5,
  'command-light': 0.5,
  'command-light-nightly': 0.5,
  'command-r': 0.25,
  'command-r-plus': 1.5,
  'command-r-08-2024': 0.075,
  'command-r-plus-08-2024': 1.25,
  'deepseek-chat': 0.07,
  'deepseek-coder': 0.07,
  // Perplexity's online models also charge per search; that is not included.
  'llama-3-sonar-small-32k-chat': (0.2 / 1000) * USD,
  'llama-3-sonar-small-32k-online': (0.2 / 1000) * USD,
  'llama-3-sonar-large-32k-chat': (1 / 1000) * USD,
  'llama-3-sonar-large-32k-online': (1 / 1000) * USD,
});

/** USD per call. Midjourney and Suno actions without a configured price are charged 0.1 by the relay. */
export const DEFAULT_MODEL_PRICE: Readonly<Record<string, number>> = Object.freeze({
  suno_music: 0.1,
  suno_lyrics: 0.01,
  'dall-e-3': 0.04,
  'gpt-4-gizmo-*': 0.1,
  mj_imagine: 0.1,
  mj_variation: 0.1,
  mj_reroll: 0.1,
  mj_blend: 0.1,
  mj_modal: 0.1,
  mj_zoom: 0.1,
  mj_shorten: 0.1,
  mj_high_variation: 0.1,
  mj_low_variation: 0.1,
  mj_pan: 0.1,
  mj_inpaint: 0,
  mj_custom_zoom: 0,
  mj_describe: 0.05,
  mj_upscale: 0.05,
  swap_face: 0.05,
  mj_upload: 0.05,
});

/**
 * Only the names the hard-coded completion rules do not cover: the relay's rules take precedence over this
 * option, which is consulted only for a model no rule matches.
 */
export const DEFAULT_COMPLETION_RATIO: Readonly<Record<string, number>> = Object.freeze({
  'gpt-4-all': 2,
  'gpt-4-gizmo-*': 2,
  'gpt-4o-gizmo-*': 3,
});

/** Serialises with sorted keys, as new-api's Go encoder does, so the default text is stable. */
export function pricingJson(table: Readonly<Record<string, number>>): string {
  const sorted: Record<string, number> = {};
  for (const key of Object.keys(table).sort()) sorted[key] = table[key];
  return JSON.stringify(sorted);
}
