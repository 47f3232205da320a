import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { userActor } from '../../ledger/event-envelope';
import { OptionsService } from '../../modules/options';
import { MidjourneyTaskLedger, MidjourneyTaskReader, toMidjourneyDto } from '../../modules/tasks';
import { relayAuthorization } from '../pipeline/relay-authorization';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import {
  RELAY_AUTHENTICATOR,
  RELAY_CHANNEL_ROUTER,
  type RelayAuthenticator,
  type RelayCaller,
  type RelayChannelRouter,
} from '../relay-ports';
import { MjRequestError } from './midjourney-actions';
import { jsonBody, sendMjError, sendMjJson, sendMjRaw } from './midjourney-http';
import { upstreamProgress } from './midjourney-upstream';

const SEED_TIMEOUT_MS = 30_000;
const IMAGE_TIMEOUT_MS = 60_000;

/**
 * The Midjourney routes that read tasks (served from the midjourney_tasks read model, scoped to the caller), the
 * image seed (asked of the task's channel), the unauthenticated image proxy and the notify callback.
 */
@Injectable()
export class MidjourneyQueriesService {
  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    @Inject(RELAY_CHANNEL_ROUTER) private readonly router: RelayChannelRouter,
    private readonly options: OptionsService,
    private readonly reader: MidjourneyTaskReader,
    private readonly tasks: MidjourneyTaskLedger,
  ) {}

  private caller(request: RelayHttpRequest): Promise<RelayCaller> {
    return this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, { tokenAuthOnly: true });
  }

  /** GET /mj/task/:id/fetch: the caller's task, else `task_no_found`. */
  async fetch(request: RelayHttpRequest, response: ServerResponse, mjId: string): Promise<void> {
    await this.answer(request, response, async () => {
      const caller = await this.caller(request);
      const task = await this.reader.findOwned(caller.user.id, mjId);
      if (!task) throw new MjRequestError('task_no_found');
      return toMidjourneyDto(task, this.options);
    });
  }

  /** POST /mj/task/list-by-condition `{ids}`: the caller's tasks among them, an array. */
  async listByCondition(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    await this.answer(request, response, async () => {
      const caller = await this.caller(request);
      const body = jsonBody(request.rawBody);
      const ids = Array.isArray(body.ids) ? body.ids.filter((id): id is string => typeof id === 'string').slice(0, 1000) : [];
      const tasks = await this.reader.listOwned(caller.user.id, ids);
      return tasks.map((task) => toMidjourneyDto(task, this.options));
    });
  }

  /** GET /mj/task/:id/image-seed: asked of the task's own channel, its answer relayed. */
  async imageSeed(request: RelayHttpRequest, response: ServerResponse, mjId: string): Promise<void> {
    try {
      const caller = await this.caller(request);
      const task = await this.reader.findOwned(caller.user.id, mjId);
      if (!task) throw new MjRequestError('task_no_found');
      const channel = this.router.get(task.channelId);
      if (!channel) throw new MjRequestError('get_channel_info_failed');
      const base = channel.baseUrl.replace(/\/+$/, '');
      const answer = await fetch(`${base}/mj/task/${encodeURIComponent(mjId)}/image-seed`, {
        headers: { 'mj-api-secret': channel.key },
        signal: AbortSignal.timeout(SEED_TIMEOUT_MS),
      }).catch((error: Error) => {
        throw new MjRequestError(`do_request_failed ${error.message}`, 4, 400, 'upstream_error');
      });
      sendMjRaw(response, request.requestId, answer.status, await answer.text());
    } catch (error) {
      sendMjError(response, request.requestId, error);
    }
  }

  /** GET /mj/image/:id (no auth): the stored image, fetched and streamed. */
  async image(request: RelayHttpRequest, response: ServerResponse, mjId: string): Promise<void> {
    const task = await this.reader.findByMjId(mjId).catch(() => null);
    if (!task || task.imageUrl === '') {
      sendMjJson(response, request.requestId, 400, { error: 'midjourney_task_not_found' });
      return;
    }
    let answer: Response;
    try {
      answer = await fetch(task.imageUrl, { signal: AbortSignal.timeout(IMAGE_TIMEOUT_MS) });
    } catch {
      sendMjJson(response, request.requestId, 500, { error: 'http_get_image_failed' });
      return;
    }
    const bytes = Buffer.from(await answer.arrayBuffer());
    if (answer.status !== 200) {
      sendMjJson(response, request.requestId, answer.status, { error: bytes.toString('utf8') });
      return;
    }
    response.writeHead(200, {
      'content-type': answer.headers.get('content-type') ?? 'image/png',
      'content-length': String(bytes.length),
      'x-oneapi-request-id': request.requestId,
    });
    response.end(bytes);
  }

  /**
   * POST /mj/notify: a Midjourney-Proxy's callback. Unlike new-api, only for a task of the calling token's owner, and
   * — when the key names a channel (`sk-KEY-<channel id>`) — of that channel; it moves the task through the same
   * decider as the poller, so a failure it reports is refunded once like any other.
   */
  async notify(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    await this.answer(request, response, async () => {
      const caller = await this.caller(request);
      const body = jsonBody(request.rawBody);
      const mjId = typeof body.id === 'string' ? body.id : '';
      const task = await this.reader.findOwned(caller.user.id, mjId);
      if (!task) throw new MjRequestError('task_not_found');
      if (caller.specificChannelId !== null && caller.specificChannelId !== task.channelId) throw new MjRequestError('task_not_found');
      const write = await this.tasks.apply(
        task.taskId,
        { type: 'ObserveMidjourneyTask', upstream: upstreamProgress(body, task), now: Date.now() },
        {
          correlationId: request.requestId,
          actor: userActor(caller.user.id, caller.user.role),
          clientIp: request.clientIp,
          reasonCode: 'mj_notify',
        },
      );
      await this.tasks.visible(write.position);
      return { code: 1, description: '', result: '' };
    });
  }

  private async answer(request: RelayHttpRequest, response: ServerResponse, run: () => Promise<unknown>): Promise<void> {
    try {
      sendMjJson(response, request.requestId, 200, await run());
    } catch (error) {
      sendMjError(response, request.requestId, error);
    }
  }
}
