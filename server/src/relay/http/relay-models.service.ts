import type { ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from '../../modules/options/pricing-defaults';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import { RelayError } from '../relay-error';
import { RELAY_AUTHENTICATOR, RELAY_CHANNEL_ROUTER, type RelayAuthenticator, type RelayChannelRouter } from '../relay-ports';

const CREATED = 1626777600;

const PERMISSION = Object.freeze({
  id: 'modelperm-LwHkVFn8AcMItP432fKKDIKJ',
  object: 'model_permission',
  created: CREATED,
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

/** `owned_by` as the reference's built-in adaptor model lists give it; anything else is `custom`. */
export function ownerOf(model: string): string {
  if (/^(gpt-|o1-|chatgpt-|dall-e|whisper|tts-|text-|babbage|davinci|curie|ada|code-)/.test(model)) return 'openai';
  if (model.startsWith('claude')) return 'claude';
  if (model.startsWith('gemini')) return 'google gemini';
  if (model.startsWith('mj_') || model === 'swap_face') return 'midjourney';
  if (model.startsWith('suno_')) return 'suno';
  if (model.startsWith('ERNIE') || model.startsWith('bge-') || model === 'tao-8k' || model === 'Embedding-V1') return 'baidu';
  if (model.startsWith('glm-') || model.startsWith('chatglm')) return 'zhipu';
  if (model.startsWith('qwen')) return 'ali';
  if (model.startsWith('SparkDesk')) return 'xunfei';
  if (model.startsWith('360')) return '360';
  if (model.startsWith('moonshot')) return 'moonshot';
  if (model.startsWith('yi-')) return 'lingyiwanwu';
  return 'custom';
}

function modelObject(id: string) {
  return { id, object: 'model', created: CREATED, owned_by: ownerOf(id), permission: [PERMISSION], root: id, parent: null };
}

/** The static catalogue `GET /v1/models/:model` answers from (reference §8.2). */
const CATALOGUE = new Set([...Object.keys(DEFAULT_MODEL_RATIO), ...Object.keys(DEFAULT_MODEL_PRICE)]);

function sendJson(response: ServerResponse, status: number, requestId: string, body: unknown): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': requestId,
  });
  response.end(payload);
}

/** `GET /v1/models` and `GET /v1/models/:model` (reference §8.2, shapes kept: `{success,data}`, 200 for unknown). */
@Injectable()
export class RelayModelsService {
  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
  ) {}

  async list(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    try {
      const auth = request.headers.authorization;
      const caller = await this.authenticator.authenticate(Array.isArray(auth) ? auth[0] : auth, request.clientIp, undefined, { skipIpCheck: true });
      const models = caller.token.modelLimits ? [...caller.token.modelLimits] : this.router.modelsForGroup(caller.group);
      sendJson(response, 200, request.requestId, { success: true, data: models.map(modelObject) });
    } catch (error) {
      this.fail(request, response, error);
    }
  }

  async retrieve(request: RelayHttpRequest, response: ServerResponse, model: string): Promise<void> {
    try {
      const auth = request.headers.authorization;
      await this.authenticator.authenticate(Array.isArray(auth) ? auth[0] : auth, request.clientIp, undefined, { skipIpCheck: true });
      if (CATALOGUE.has(model)) {
        sendJson(response, 200, request.requestId, modelObject(model));
        return;
      }
      sendJson(response, 200, request.requestId, {
        error: { message: `The model '${model}' does not exist`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' },
      });
    } catch (error) {
      this.fail(request, response, error);
    }
  }

  /**
   * The 501 routes (reference §1): TokenAuth runs first, so a bad token gets its 401 and only an authenticated
   * caller learns the route is not implemented. Nothing is reserved or charged.
   */
  async notImplemented(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    try {
      const auth = request.headers.authorization;
      await this.authenticator.authenticate(Array.isArray(auth) ? auth[0] : auth, request.clientIp);
      sendJson(response, 501, request.requestId, { error: { message: 'API not implemented', type: 'new_api_error', param: '', code: 'api_not_implemented' } });
    } catch (error) {
      this.fail(request, response, error);
    }
  }

  private fail(request: RelayHttpRequest, response: ServerResponse, error: unknown): void {
    const relayError = error instanceof RelayError ? error : new RelayError(500, String((error as Error)?.message ?? error), 'new_api_error', { shape: 'relay' });
    sendJson(response, relayError.status, request.requestId, relayError.toBody(request.requestId));
  }
}
