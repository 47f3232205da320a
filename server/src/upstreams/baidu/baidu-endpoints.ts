/** Models whose Baidu endpoint is not their lower-cased name (Baidu's endpoint list, as new-api has it). */
const ENDPOINTS: Readonly<Record<string, string>> = {
  'ERNIE-4.0': 'completions_pro',
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-Bot': 'completions',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-3.5-8K-0205': 'ernie-3.5-8k-0205',
  'ERNIE-3.5-8K-1222': 'ernie-3.5-8k-1222',
  'ERNIE-3.5-4K-0205': 'ernie-3.5-4k-0205',
  'ERNIE-Bot-8K': 'ernie_bot_8k',
  'ERNIE-Bot-turbo': 'eb-instant',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Lite-8K-0308': 'ernie-lite-8k',
  'ERNIE-Tiny-8K': 'ernie-tiny-8k',
  'ERNIE-Speed': 'ernie_speed',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Speed-128K': 'ernie-speed-128k',
  'BLOOMZ-7B': 'bloomz_7b1',
  'Embedding-V1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

/** Embedding models live under `embeddings/`, every other model under `chat/`. */
export function isBaiduEmbeddingModel(model: string): boolean {
  return model.startsWith('Embedding') || model.startsWith('bge-large') || model.startsWith('tao-8k');
}

/** `/rpc/2.0/ai_custom/v1/wenxinworkshop/{chat|embeddings}/{endpoint}` for a model. */
export function baiduModelPath(model: string): string {
  const folder = isBaiduEmbeddingModel(model) ? 'embeddings' : 'chat';
  const endpoint = Object.hasOwn(ENDPOINTS, model) ? ENDPOINTS[model] : model.toLowerCase();
  return `/rpc/2.0/ai_custom/v1/wenxinworkshop/${folder}/${encodeURIComponent(endpoint)}`;
}
