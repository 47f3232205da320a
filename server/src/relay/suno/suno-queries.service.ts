import { Inject, Injectable } from '@nestjs/common';
import type { ServerResponse } from 'node:http';
import { TaskReader, toTaskDto } from '../../modules/tasks';
import { relayAuthorization } from '../pipeline/relay-authorization';
import type { RelayHttpRequest } from '../pipeline/relay-pipeline.service';
import { RELAY_AUTHENTICATOR, type RelayAuthenticator, type RelayCaller } from '../relay-ports';
import { localTaskError, sendTaskError, sendTaskJson, taskJsonBody } from './suno-http';

/** The Suno fetch routes: served from the tasks read model, scoped to the caller, no channel asked. */
@Injectable()
export class SunoQueriesService {
  constructor(
    @Inject(RELAY_AUTHENTICATOR) private readonly authenticator: RelayAuthenticator,
    private readonly reader: TaskReader,
  ) {}

  private caller(request: RelayHttpRequest): Promise<RelayCaller> {
    return this.authenticator.authenticate(relayAuthorization(request.headers), request.clientIp, undefined, { tokenAuthOnly: true });
  }

  /** POST /suno/fetch `{ids, action}`: the caller's tasks among the ids (an empty list without ids). */
  async fetchMany(request: RelayHttpRequest, response: ServerResponse): Promise<void> {
    await this.answer(request, response, async () => {
      const caller = await this.caller(request);
      const body = taskJsonBody(request.rawBody);
      if (body.ids !== undefined && body.ids !== null && !Array.isArray(body.ids))
        throw localTaskError('invalid_request', 'ids must be an array');
      const ids = Array.isArray(body.ids) ? body.ids.filter((id): id is string => typeof id === 'string').slice(0, 1000) : [];
      return (await this.reader.listOwned(caller.user.id, ids)).map(toTaskDto);
    });
  }

  /** GET /suno/fetch/:id: the caller's task, else 400 task_not_exist. */
  async fetchOne(request: RelayHttpRequest, response: ServerResponse, id: string): Promise<void> {
    await this.answer(request, response, async () => {
      const caller = await this.caller(request);
      const task = await this.reader.findOwned(caller.user.id, id);
      if (!task) throw localTaskError('task_not_exist', 'task_not_exist');
      return toTaskDto(task);
    });
  }

  private async answer(request: RelayHttpRequest, response: ServerResponse, build: () => Promise<unknown>): Promise<void> {
    try {
      const data = await build();
      sendTaskJson(response, request.requestId, 200, JSON.stringify({ code: 'success', message: '', data }));
    } catch (error) {
      sendTaskError(response, request.requestId, error);
    }
  }
}
