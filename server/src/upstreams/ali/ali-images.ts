import { parseJsonObject } from '../shared/map-upstream-error';
import type { JsonObject, UpstreamCall, UpstreamFailure, UpstreamRequestInput, UpstreamResponse } from '../upstream-adapter';
import { ConvertRequestError, UpstreamCallFailure } from '../upstream-errors';
import { aliErrorOf, aliFailure, aliHeaders, aliTarget } from './ali-api';

export interface TaskPolling {
  /** Milliseconds between two task queries (new-api: 3 s). */
  readonly intervalMs: number;
  /** Queries before giving up (new-api: 20). */
  readonly maxPolls: number;
  readonly sleep: (ms: number) => Promise<void>;
}

export const DEFAULT_TASK_POLLING: TaskPolling = {
  intervalMs: 3000,
  maxPolls: 20,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * OpenAI image generation → DashScope text2image, an asynchronous task (https://help.aliyun.com/zh/model-studio/developer-reference/text-to-image-v2-api-reference):
 * `{model, input: {prompt, negative_prompt?}, parameters: {size "W*H", n, style?}}` sent with `X-DashScope-Async: enable`.
 */
export function buildAliImageRequest(body: JsonObject, upstreamModel: string): JsonObject {
  if (typeof body.prompt !== 'string' || body.prompt === '') throw new ConvertRequestError('prompt is required');
  const input: JsonObject = { prompt: body.prompt };
  if (typeof body.negative_prompt === 'string') input.negative_prompt = body.negative_prompt;
  const parameters: JsonObject = {};
  if (typeof body.size === 'string' && body.size !== '') parameters.size = body.size.replace('x', '*');
  if (typeof body.n === 'number') parameters.n = body.n;
  if (typeof body.style === 'string') parameters.style = `<${body.style}>`;
  return { model: upstreamModel, input, parameters };
}

function taskOutput(body: JsonObject | null): JsonObject {
  return body && typeof body.output === 'object' && body.output !== null ? (body.output as JsonObject) : {};
}

function taskFailure(status: number, message: string, code: string, requestId = ''): UpstreamFailure {
  return { ok: false, status, error: { message, type: code, param: requestId, code } };
}

/**
 * Follows a created task to its end on the channel's base URL (`GET /api/v1/tasks/{id}`: new-api built this URL without
 * a host, so its polls never reached DashScope) and returns the final task body. With `response_format: b64_json` the
 * image URLs are fetched and inlined. A failed, unknown or unfinished task throws UpstreamCallFailure.
 */
export async function completeAliImageTask(
  input: UpstreamRequestInput,
  created: UpstreamResponse,
  call: UpstreamCall,
  polling: TaskPolling,
): Promise<UpstreamResponse> {
  const createdBody = parseJsonObject(created.body);
  const error = aliErrorOf(createdBody);
  if (error) throw new UpstreamCallFailure({ ok: false, status: 500, error });
  const taskId = taskOutput(createdBody).task_id;
  if (typeof taskId !== 'string' || taskId === '') {
    throw new UpstreamCallFailure(taskFailure(500, 'DashScope answered without a task id', 'unmarshal_response_body_failed'));
  }
  for (let poll = 0; poll < polling.maxPolls; poll++) {
    await polling.sleep(polling.intervalMs);
    const answer = await call({
      ...aliTarget(input, `/api/v1/tasks/${encodeURIComponent(taskId)}`),
      method: 'GET',
      headers: aliHeaders(input),
      body: undefined,
    });
    if (answer.status < 200 || answer.status >= 300) {
      throw new UpstreamCallFailure(
        aliFailure(answer.status, answer.body) ??
          taskFailure(answer.status, `task query failed with status ${answer.status}`, 'ali_task_error'),
      );
    }
    const body = parseJsonObject(answer.body);
    const output = taskOutput(body);
    const status = output.task_status;
    if (status === 'SUCCEEDED') return inlineImages(input, answer, body!, call);
    if (status === 'FAILED' || status === 'UNKNOWN' || status === 'CANCELED') {
      const code = typeof output.code === 'string' && output.code !== '' ? output.code : 'ali_task_failed';
      const message = typeof output.message === 'string' && output.message !== '' ? output.message : `task ${taskId} ${String(status)}`;
      throw new UpstreamCallFailure(taskFailure(500, message, code, typeof body?.request_id === 'string' ? body.request_id : ''));
    }
  }
  throw new UpstreamCallFailure(taskFailure(504, `task ${taskId} did not finish after ${polling.maxPolls} queries`, 'ali_task_timeout'));
}

async function inlineImages(
  input: UpstreamRequestInput,
  answer: UpstreamResponse,
  body: JsonObject,
  call: UpstreamCall,
): Promise<UpstreamResponse> {
  if (input.body?.response_format !== 'b64_json') return answer;
  const output = taskOutput(body);
  const results = Array.isArray(output.results) ? (output.results as JsonObject[]) : [];
  const inlined: JsonObject[] = [];
  for (const result of results) {
    if (typeof result.url !== 'string') continue;
    const url = new URL(result.url);
    const image = await call({
      origin: url.origin,
      path: url.pathname + url.search,
      url: result.url,
      method: 'GET',
      headers: {},
      body: undefined,
    });
    if (image.status < 200 || image.status >= 300) {
      throw new UpstreamCallFailure(
        taskFailure(502, `cannot download the generated image (status ${image.status})`, 'ali_image_download_failed'),
      );
    }
    inlined.push({ ...result, b64_json: Buffer.from(image.body).toString('base64') });
  }
  return { ...answer, body: Buffer.from(JSON.stringify({ ...body, output: { ...output, results: inlined } })) };
}

/** The finished task as OpenAI's images answer: `{created, data: [{url} | {b64_json}]}`. */
export function convertAliImages(body: JsonObject, now: number): JsonObject {
  const output = taskOutput(body);
  const results = Array.isArray(output.results) ? (output.results as JsonObject[]) : [];
  return {
    created: Math.floor(now / 1000),
    data: results
      .filter((result) => typeof result.url === 'string' || typeof result.b64_json === 'string')
      .map((result) => (typeof result.b64_json === 'string' ? { b64_json: result.b64_json } : { url: result.url })),
  };
}
