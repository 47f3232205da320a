import type { ServerResponse } from 'node:http';
import { type RecordedRequest, sendJson } from '../http-fake';
import { OpenAIUpstreamFake } from './openai-upstream-fake';

/**
 * A fake Azure OpenAI resource: the OpenAI wire shapes on
 * `/openai/deployments/{deployment}/{operation}?api-version=…`, authenticated by the `api-key` header. Like Azure
 * it answers 401 with its own error shape for a wrong key, 404 DeploymentNotFound for a deployment it does not
 * have, 404 for a missing api-version, and 400 for `stream_options` on api-versions before 2024-09-01-preview.
 */
export class AzureOpenAIUpstreamFake extends OpenAIUpstreamFake {
  apiKey = 'azure-key';
  deployments = new Set<string>();

  protected override async answer(request: RecordedRequest, response: ServerResponse): Promise<void> {
    const url = new URL(request.url, 'http://azure.local');
    if (request.headers['api-key'] !== this.apiKey) {
      sendJson(response, 401, {
        error: {
          code: '401',
          message:
            'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.',
        },
      });
      return;
    }
    const match = /^\/openai\/deployments\/([^/]+)\/(.+)$/.exec(url.pathname);
    const version = url.searchParams.get('api-version');
    if (!match || !version) {
      sendJson(response, 404, { error: { code: '404', message: 'Resource not found' } });
      return;
    }
    if (!this.deployments.has(match[1])) {
      sendJson(response, 404, {
        error: {
          code: 'DeploymentNotFound',
          message:
            'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.',
        },
      });
      return;
    }
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(request.body) as Record<string, unknown>;
    } catch {
      // the OpenAI fake answers bad JSON itself
    }
    if (body.stream_options !== undefined && version < '2024-09-01-preview') {
      sendJson(response, 400, {
        error: {
          message: 'Unrecognized request argument supplied: stream_options',
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
      return;
    }
    await super.answer(request, response);
  }
}
