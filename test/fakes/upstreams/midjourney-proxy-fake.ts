import { deflateSync } from 'node:zlib';
import { HttpFake, type RecordedRequest, sendJson } from '../http-fake';

/** One task as the fake proxy holds it (Midjourney-Proxy's task JSON). */
export interface FakeMjTask {
  id: string;
  action: string;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  status: string;
  progress: string;
  failReason: string;
  buttons: Array<{ customId: string; label: string }>;
  properties: { finalPrompt: string; finalZhPrompt: string };
}

/**
 * A Midjourney-Proxy (and Plus) on a local port, as new-api's relay talks to it: submits answer
 * `{code, description, result, properties}` (1 submitted, or whatever `nextCode` says: 21 exists, 22 queued, 24 banned,
 * 30 saturated…); `POST /mj/task/list-by-condition {ids}` lists the tasks it holds; `GET /mj/task/:id/image-seed`; the
 * image itself at `/image/:id.png`. Every call must carry `mj-api-secret: <secret>` (401 otherwise). A spec moves a
 * task with `progress()`, `succeed()` or `fail()`.
 */
export class MidjourneyProxyFake extends HttpFake {
  readonly tasks = new Map<string, FakeMjTask>();
  /** The code (and description) of the next submit's answer; reset after use. */
  nextAnswer: { code: number; description: string; result?: string; properties?: Record<string, unknown>; status?: number } | null = null;
  private counter = 0;

  constructor(readonly secret = 'mj-secret') {
    super((request, response) => {
      const path = request.url.split('?')[0];
      // The images are public (a CDN's URLs); everything else needs the secret.
      const image = /^\/image\/([^/]+)\.png$/.exec(path);
      if (request.method === 'GET' && image) {
        response.writeHead(200, { 'content-type': 'image/png' }).end(fakeImage(image[1]));
        return;
      }
      if (request.headers['mj-api-secret'] !== this.secret) return sendJson(response, 401, { code: 401, description: 'bad secret' });
      if (request.method === 'POST' && (path.startsWith('/mj/submit/') || path === '/mj/insight-face/swap')) {
        const answer = this.submit(path, request);
        return sendJson(response, answer.status, answer.body);
      }
      if (request.method === 'POST' && path === '/mj/task/list-by-condition') {
        const ids = (JSON.parse(request.body || '{}') as { ids?: string[] }).ids ?? [];
        return sendJson(
          response,
          200,
          ids.flatMap((id) => (this.tasks.has(id) ? [this.tasks.get(id)] : [])),
        );
      }
      const seed = /^\/mj\/task\/([^/]+)\/image-seed$/.exec(path);
      if (request.method === 'GET' && seed) return sendJson(response, 200, { code: 1, description: 'success', result: `seed-${seed[1]}` });
      sendJson(response, 404, { code: 404, description: `no route ${request.method} ${path}` });
    });
  }

  /** Submits received (method, path, parsed body), for asserting what the relay forwarded. */
  submits(): Array<{ path: string; body: Record<string, unknown> }> {
    return this.requests
      .filter((request) => request.method === 'POST' && (request.url.startsWith('/mj/submit/') || request.url === '/mj/insight-face/swap'))
      .map((request) => ({ path: request.url, body: JSON.parse(request.body || '{}') as Record<string, unknown> }));
  }

  private submit(path: string, request: RecordedRequest): { status: number; body: Record<string, unknown> } {
    const body = JSON.parse(request.body || '{}') as Record<string, unknown>;
    const answer = this.nextAnswer;
    this.nextAnswer = null;
    const id = answer?.result ?? `${1_700_000_000_000 + ++this.counter}`;
    const code = answer?.code ?? 1;
    if (code === 1 || code === 21 || code === 22) {
      if (!this.tasks.has(id)) {
        this.tasks.set(id, {
          id,
          action: path.slice(path.lastIndexOf('/') + 1).toUpperCase(),
          prompt: typeof body.prompt === 'string' ? body.prompt : '',
          promptEn: '',
          description: '',
          state: '',
          submitTime: Date.now(),
          startTime: 0,
          finishTime: 0,
          imageUrl: '',
          status: 'SUBMITTED',
          progress: '0%',
          failReason: '',
          buttons: [],
          properties: { finalPrompt: '', finalZhPrompt: '' },
        });
      }
    }
    return {
      status: answer?.status ?? 200,
      body: { code, description: answer?.description ?? '提交成功', result: code === 24 ? '' : id, properties: answer?.properties ?? {} },
    };
  }

  progress(id: string, progress: string): void {
    Object.assign(this.task(id), { status: 'IN_PROGRESS', progress, startTime: Date.now(), promptEn: 'a cat, translated' });
  }

  succeed(id: string): void {
    Object.assign(this.task(id), {
      status: 'SUCCESS',
      progress: '100%',
      finishTime: Date.now(),
      imageUrl: `${this.baseUrl}/image/${id}.png`,
      buttons: [{ customId: `MJ::JOB::upsample::1::${id}`, label: 'U1' }],
    });
  }

  fail(id: string, reason: string): void {
    Object.assign(this.task(id), { status: 'FAILURE', progress: '', failReason: reason, finishTime: Date.now() });
  }

  private task(id: string): FakeMjTask {
    const task = this.tasks.get(id);
    if (!task) throw new Error(`the fake holds no task ${id}`);
    return task;
  }
}

/**
 * The fake's image of a task: a real 8×8 PNG (a browser decodes it) whose tEXt chunk names the task, so each task's
 * bytes differ and a spec can tell whose image it was served.
 */
export function fakeImage(id: string): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(8, 0); // width
  header.writeUInt32BE(8, 4); // height
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(8 * 3, 0xc8)]); // filter byte, then grey pixels
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('tEXt', Buffer.from(`Comment\0task ${id}`, 'latin1')),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: 8 }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}
