import { HttpFake, sendJson } from '../http-fake';

/** One task as the fake Suno API holds it (new-api's TaskDto upstream shape). */
export interface FakeSunoTask {
  task_id: string;
  action: string;
  status: string;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  data: unknown;
}

/**
 * A Suno API (suno-api / Suno relay) on a local port, as new-api talks to it: `POST /suno/submit/{MUSIC|LYRICS}`
 * answers `{code:"success", message:"", data:"<task id>"}` (or `nextAnswer`: another status, a non-success code);
 * `POST /suno/fetch {ids}` answers `{code:"success", data:[…]}`. Every call needs `Authorization: Bearer <key>`
 * (401 otherwise). A spec moves a task with `start()`, `succeed()` or `fail()`.
 */
export class SunoApiFake extends HttpFake {
  readonly tasks = new Map<string, FakeSunoTask>();
  /** The next submit's answer (status and body); reset after use. */
  nextAnswer: { status: number; body: unknown } | null = null;
  /** Answers for the next submits, in order (for retries); used before nextAnswer. */
  queuedAnswers: Array<{ status: number; body: unknown }> = [];
  private counter = 0;

  constructor(readonly key = 'suno-key') {
    super((request, response) => {
      const path = request.url.split('?')[0];
      if (request.headers.authorization !== `Bearer ${this.key}`)
        return sendJson(response, 401, { code: 'unauthorized', message: 'bad key' });
      const submit = /^\/suno\/submit\/([A-Z]+)$/.exec(path);
      if (request.method === 'POST' && submit) {
        const answer = this.queuedAnswers.shift() ?? this.nextAnswer;
        this.nextAnswer = null;
        if (answer) return sendJson(response, answer.status, answer.body);
        const id = `suno-${++this.counter}-${Date.now()}`;
        this.tasks.set(id, {
          task_id: id,
          action: submit[1],
          status: 'SUBMITTED',
          fail_reason: '',
          submit_time: Math.floor(Date.now() / 1000),
          start_time: 0,
          finish_time: 0,
          data: null,
        });
        return sendJson(response, 200, { code: 'success', message: '', data: id });
      }
      if (request.method === 'POST' && path === '/suno/fetch') {
        const ids = (JSON.parse(request.body || '{}') as { ids?: string[] }).ids ?? [];
        return sendJson(response, 200, {
          code: 'success',
          message: '',
          data: ids.flatMap((id) => (this.tasks.has(id) ? [this.tasks.get(id)] : [])),
        });
      }
      sendJson(response, 404, { code: 'not_found', message: `no route ${request.method} ${path}` });
    });
  }

  /** Submits received (path, parsed body). */
  submits(): Array<{ path: string; body: Record<string, unknown> }> {
    return this.requests
      .filter((request) => request.method === 'POST' && request.url.startsWith('/suno/submit/'))
      .map((request) => ({ path: request.url, body: JSON.parse(request.body || '{}') as Record<string, unknown> }));
  }

  fetches(): number {
    return this.requests.filter((request) => request.url === '/suno/fetch').length;
  }

  inProgress(id: string): void {
    Object.assign(this.task(id), { status: 'IN_PROGRESS', start_time: Math.floor(Date.now() / 1000) });
  }

  succeed(id: string): void {
    Object.assign(this.task(id), {
      status: 'SUCCESS',
      finish_time: Math.floor(Date.now() / 1000),
      data: [{ id: `${id}-clip`, audio_url: `https://cdn.example/${id}.mp3`, title: 'song' }],
    });
  }

  fail(id: string, reason: string): void {
    Object.assign(this.task(id), { status: 'FAILURE', fail_reason: reason, finish_time: Math.floor(Date.now() / 1000) });
  }

  private task(id: string): FakeSunoTask {
    const task = this.tasks.get(id);
    if (!task) throw new Error(`the fake holds no task ${id}`);
    return task;
  }
}
