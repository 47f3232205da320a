import type { ServerResponse } from 'node:http';
import { type RecordedRequest, sendJson } from '../http-fake';
import { OpenAIUpstreamFake } from './openai-upstream-fake';

/**
 * A fake Ollama server: its OpenAI-compatible API (`/v1/chat/completions`, `/v1/completions`, honouring
 * stream_options.include_usage as Ollama does) and its native `POST /api/embed`
 * (https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings). No auth. A model that was not
 * pulled answers 404 in each API's own error shape.
 */
export class OllamaUpstreamFake extends OpenAIUpstreamFake {
  models = new Set<string>();
  /** Tokens reported per embedded input (prompt_eval_count sums them). */
  embedTokensPerInput = 4;

  protected override async answer(request: RecordedRequest, response: ServerResponse): Promise<void> {
    const path = request.url.split('?')[0];
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      sendJson(response, 400, { error: 'invalid character in JSON body' });
      return;
    }
    const model = typeof body.model === 'string' ? body.model : '';
    const known = this.models.has(model) || this.models.has(`${model}:latest`);
    if (path === '/api/embed') {
      if (!known) return sendJson(response, 404, { error: `model "${model}" not found, try pulling it first` });
      const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? (body.input as string[]) : null;
      if (!inputs) return sendJson(response, 400, { error: 'invalid input type' });
      sendJson(response, 200, {
        model,
        embeddings: inputs.map((text, index) => [0.25 * (index + 1), -0.5, text.length / 100, 0.125]),
        total_duration: 14143917,
        load_duration: 1019500,
        prompt_eval_count: inputs.length * this.embedTokensPerInput,
      });
      return;
    }
    if (path.startsWith('/api/')) return sendJson(response, 404, { error: `unsupported path ${path} in this fake` });
    if (!known) {
      sendJson(response, 404, {
        error: { message: `model "${model}" not found, try pulling it first`, type: 'api_error', param: null, code: null },
      });
      return;
    }
    await super.answer(request, response);
  }
}
