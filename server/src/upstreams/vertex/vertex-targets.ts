import { splitBaseUrl, upstreamTarget } from '../shared/upstream-url';
import type { UpstreamRequest } from '../upstream-adapter';

export type VertexMode = 'claude' | 'gemini' | 'openai';

/** By the upstream model name, as new-api: `claude*` → Anthropic's publisher, `gemini*` → Google's, `*llama*` → the OpenAI endpoint. */
export function vertexMode(model: string): VertexMode | null {
  if (model.startsWith('claude')) return 'claude';
  if (model.startsWith('gemini')) return 'gemini';
  if (model.includes('llama')) return 'openai';
  return null;
}

/** Claude's Vertex names put `@` before the date: `claude-3-5-sonnet-20240620` → `claude-3-5-sonnet@20240620`. */
export function vertexClaudeModel(model: string): string {
  return model.replace(/-(\d{8})$/, '@$1');
}

/** `https://<region>-aiplatform.googleapis.com` (`global`: no region prefix), or the channel's base URL. */
export function vertexHost(region: string, baseUrl: string | null): string {
  if (baseUrl) return baseUrl;
  return region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
}

export function vertexTarget(
  mode: VertexMode,
  host: string,
  project: string,
  region: string,
  model: string,
  stream: boolean,
): Pick<UpstreamRequest, 'origin' | 'path' | 'url'> {
  const location = `/projects/${encodeURIComponent(project)}/locations/${encodeURIComponent(region)}`;
  let path: string;
  if (mode === 'openai') path = `/v1beta1${location}/endpoints/openapi/chat/completions`;
  else {
    const publisher = mode === 'claude' ? 'anthropic' : 'google';
    const name = encodeURIComponent(mode === 'claude' ? vertexClaudeModel(model) : model).replace(/%40/g, '@');
    const action =
      mode === 'claude'
        ? stream
          ? 'streamRawPredict?alt=sse'
          : 'rawPredict'
        : stream
          ? 'streamGenerateContent?alt=sse'
          : 'generateContent';
    path = `/v1${location}/publishers/${publisher}/models/${name}:${action}`;
  }
  return upstreamTarget(splitBaseUrl(host), path);
}
