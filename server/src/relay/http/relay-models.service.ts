import type { ServerResponse } from 'node:http';
import { Inject, Injectable } from '@nestjs/common';
import { allCatalogueModels, modelObject, ownerOf } from '../../modules/channels';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import { relayAuthorization } from '../pipeline/relay-authorization';
import { RelayError } from '../relay-error';
import { RELAY_AUTHENTICATOR, RELAY_CHANNEL_ROUTER, type RelayAuthenticator, type RelayChannelRouter } from '../relay-ports';

/**
 * The static catalogue `GET /v1/models/:model` answers from, as in new-api: the built-in adaptor model lists,
 * the same ones `owned_by` and `GET /api/channel/models` come from (not the pricing tables, which name models no
 * adaptor lists and miss some that one does, such as `dall-e-2`).
 */
let catalogue: Map<string, ReturnType<typeof modelObject>> | null = null;
function catalogueModel(id: string): ReturnType<typeof modelObject> | undefined {
  catalogue ??= new Map(allCatalogueModels().map((entry) => [entry.id, entry]));
  return catalogue.get(id);
}

export function sendJson(response: ServerResponse, status: number, requestId: string, body: unknown): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(payload)),
    'x-oneapi-request-id': requestId,
  });
  response.end(payload);
}

/** `GET /v1/models` and `GET /v1/models/:model`, new-api's shapes kept: `{success,data}`, 200 for an unknown model. */
@Injectable()
export class RelayModelsService {
  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
  ) {}

  async list(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    try {
      const caller = await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, {
        tokenAuthOnly: true,
      });
      const models = caller.token.modelLimits ? [...caller.token.modelLimits] : this.router.modelsForGroup(caller.group);
      sendJson(response, 200, request.requestId, { success: true, data: models.map((model) => modelObject(model, ownerOf(model))) });
    } catch (error) {
      this.fail(request, response, error);
    }
  }

  async retrieve(request: RelayHttpRequest, response: ServerResponse, model: string): Promise<void> {
    try {
      await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, { tokenAuthOnly: true });
      const found = catalogueModel(model);
      if (found) {
        sendJson(response, 200, request.requestId, found);
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
   * new-api's 501 answer, kept as is (`/v1/images/edits`, `/v1/images/variations`, `/v1/files…`, `/v1/fine-tunes…`,
   * `DELETE /v1/models/:model` answer exactly this body):
   * new-api v0.3 relays none of these, and neither does Tollgate. TokenAuth runs first, so a bad token gets its 401.
   * Nothing is reserved or charged (relay-routes.spec.ts checks all 14 routes).
   */
  async notImplemented(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    try {
      await this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp);
      sendJson(response, 501, request.requestId, {
        error: { message: 'API not implemented', type: 'new_api_error', param: '', code: 'api_not_implemented' },
      });
    } catch (error) {
      this.fail(request, response, error);
    }
  }

  private fail(request: RelayHttpRequest, response: ServerResponse, error: unknown): void {
    sendRelayFailure(request, response, error);
  }
}

/** Any error of the relay's JSON routes in the relay's shape: a RelayError as it is, anything else a 500. */
export function sendRelayFailure(request: RelayHttpRequest, response: ServerResponse, error: unknown): void {
  const relayError =
    error instanceof RelayError
      ? error
      : new RelayError(500, String((error as Error)?.message ?? error), 'new_api_error', { shape: 'relay' });
  sendJson(response, relayError.status, request.requestId, relayError.toBody(request.requestId));
}
