import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Response } from 'undici';

/**
 * A fake of OpenAI's audio API, speaking its wire protocol:
 * - `POST /v1/audio/transcriptions` and `/v1/audio/translations` take multipart/form-data (read with undici's
 *   standard FormData parser, independent of the gateway's) and answer in the requested `response_format`:
 *   json `{text}` (plus `usage` when `tokenUsage` is set, as gpt-4o-transcribe does), verbose_json, text, srt, vtt;
 * - `POST /v1/audio/speech` takes JSON and streams the audio as chunked binary, `chunks` pieces of `chunkBytes`
 *   bytes, `chunkDelayMs` apart, with the Content-Type of the requested format.
 * Every request is recorded with its raw bytes and, for uploads, the parsed form.
 */
export interface RecordedAudioRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: Buffer;
  /** Uploads: fields by name, and the files with their bytes. */
  fields: Record<string, string>;
  files: Array<{ field: string; name: string; type: string; data: Buffer }>;
}

export interface AudioFakeBehaviour {
  status?: number;
  body?: unknown;
  /** Speech: drop the connection after this many chunks. */
  cutAfterChunks?: number;
}

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

export class OpenAIAudioUpstreamFake {
  readonly requests: RecordedAudioRequest[] = [];
  transcript = 'The quick brown fox jumps over the lazy dog.';
  /** gpt-4o-transcribe style token usage on json answers, or null (whisper-1: none). */
  tokenUsage: { input_tokens: number; output_tokens: number } | null = null;
  chunks = 4;
  chunkBytes = 2048;
  chunkDelayMs = 20;
  private readonly queue: AudioFakeBehaviour[] = [];
  private server?: Server;

  next(behaviour: AudioFakeBehaviour): this {
    this.queue.push(behaviour);
    return this;
  }

  /** The speech bytes the fake streams: chunk i is filled with byte (i + 1) × 17 mod 256, so order is checkable. */
  speechBytes(): Buffer {
    return Buffer.concat(Array.from({ length: this.chunks }, (_, index) => this.chunk(index)));
  }

  async start(): Promise<this> {
    this.server = createServer((incoming, response) => void this.handle(incoming, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private chunk(index: number): Buffer {
    return Buffer.alloc(this.chunkBytes, ((index + 1) * 17) % 256);
  }

  private async handle(incoming: IncomingMessage, response: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of incoming) parts.push(part as Buffer);
    const raw = Buffer.concat(parts);
    const recorded: RecordedAudioRequest = {
      method: incoming.method ?? 'GET',
      url: incoming.url ?? '/',
      headers: incoming.headers,
      raw,
      fields: {},
      files: [],
    };
    this.requests.push(recorded);
    const behaviour = this.queue.shift() ?? {};
    if (behaviour.status && behaviour.status !== 200) {
      json(
        response,
        behaviour.status,
        behaviour.body ?? { error: { message: 'fake failure', type: 'server_error', param: null, code: null } },
      );
      return;
    }
    const path = recorded.url.split('?')[0];
    if (path.endsWith('/audio/transcriptions') || path.endsWith('/audio/translations')) {
      let form: Awaited<ReturnType<Response['formData']>>;
      try {
        form = await new Response(raw, { headers: { 'content-type': String(incoming.headers['content-type'] ?? '') } }).formData();
      } catch {
        json(response, 400, {
          error: { message: 'Could not parse multipart form', type: 'invalid_request_error', param: null, code: null },
        });
        return;
      }
      for (const [name, value] of form) {
        if (typeof value === 'string') recorded.fields[name] = value;
        else recorded.files.push({ field: name, name: value.name, type: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
      if (!recorded.files.some((file) => file.field === 'file')) {
        json(response, 400, {
          error: {
            message: '1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)',
            type: 'invalid_request_error',
            param: null,
            code: null,
          },
        });
        return;
      }
      this.transcribe(recorded.fields.response_format ?? 'json', response);
      return;
    }
    if (path.endsWith('/audio/speech')) {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
      } catch {
        json(response, 400, {
          error: { message: 'We could not parse the JSON body of your request.', type: 'invalid_request_error', param: null, code: null },
        });
        return;
      }
      const format = typeof body.response_format === 'string' ? body.response_format : 'mp3';
      response.writeHead(200, {
        'content-type': SPEECH_TYPES[format] ?? 'audio/mpeg',
        'transfer-encoding': 'chunked',
        'x-fake-upstream': 'audio',
      });
      for (let index = 0; index < this.chunks; index++) {
        if (behaviour.cutAfterChunks !== undefined && index >= behaviour.cutAfterChunks) {
          response.socket?.destroy();
          return;
        }
        response.write(this.chunk(index));
        await new Promise((resolve) => setTimeout(resolve, this.chunkDelayMs));
      }
      response.end();
      return;
    }
    json(response, 404, {
      error: { message: `Invalid URL (${recorded.method} ${path})`, type: 'invalid_request_error', param: null, code: null },
    });
  }

  private transcribe(format: string, response: ServerResponse): void {
    const text = this.transcript;
    switch (format) {
      case 'text':
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`${text}\n`);
        return;
      case 'srt':
        response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(`1\n00:00:00,000 --> 00:00:02,500\n${text}\n\n`);
        return;
      case 'vtt':
        response.writeHead(200, { 'content-type': 'text/vtt; charset=utf-8' }).end(`WEBVTT\n\n00:00:00.000 --> 00:00:02.500\n${text}\n\n`);
        return;
      case 'verbose_json':
        json(response, 200, {
          task: 'transcribe',
          language: 'english',
          duration: 2.5,
          text,
          segments: [{ id: 0, start: 0, end: 2.5, text }],
        });
        return;
      default:
        json(
          response,
          200,
          this.tokenUsage
            ? {
                text,
                usage: { type: 'tokens', ...this.tokenUsage, total_tokens: this.tokenUsage.input_tokens + this.tokenUsage.output_tokens },
              }
            : { text },
        );
    }
  }
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}
