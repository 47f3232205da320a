import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';

const DOMAINS: Record<string, string> = {
  'v1.1': 'general',
  'v2.1': 'generalv2',
  'v3.1': 'generalv3',
  'v3.5': 'generalv3.5',
  'v4.0': '4.0Ultra',
};

export interface SparkCall {
  /** `/v3.5/chat` */
  path: string;
  frame: Record<string, any>;
}

/**
 * A fake iFlytek Spark chat WebSocket (https://www.xfyun.cn/doc/spark/Web.html). The handshake checks iFlytek's HMAC
 * auth as the gateway does: `authorization` (base64 of `api_key="…", algorithm="hmac-sha256", headers="host date
 * request-line", signature="…"`) must carry `apiKey` and the HMAC-SHA256 with `apiSecret` of
 * `host: <Host>\ndate: <date>\nGET <path> HTTP/1.1`, and the date must be within 5 minutes; otherwise the upgrade
 * is refused (401). The request frame's `header.app_id` must be `appId` (else error frame 10313) and its domain the
 * one of the path's version (else 10404). The answer is `reply` in frames (status 0, 1…, 2), the last with
 * `payload.usage.text`; `functionCall` answers a request with functions; `errorCode` answers one error frame;
 * `errorAfterFirst` sends an error frame after the first piece.
 */
export class SparkFake {
  appId = 'sparkapp';
  apiSecret = 'spark-secret';
  apiKey = 'spark-api-key';
  reply = 'Hello from the fake Spark.';
  promptTokens = 11;
  completionTokens = 7;
  functionCall: { name: string; arguments: string } | null = null;
  errorCode: { code: number; message: string } | null = null;
  errorAfterFirst = false;
  readonly calls: SparkCall[] = [];
  readonly refusedHandshakes: string[] = [];
  private server?: Server;
  private readonly wss = new WebSocketServer({ noServer: true });

  async start(): Promise<this> {
    this.server = createServer((_request, response) => response.writeHead(426).end());
    this.server.on('upgrade', (request, socket, head) => this.upgrade(request, socket, head));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get baseUrl(): string {
    return `ws://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private refuse(socket: Duplex, status: number, message: string): void {
    this.refusedHandshakes.push(message);
    const body = JSON.stringify({ message });
    socket.end(
      `HTTP/1.1 ${status} Unauthorized\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(request.url ?? '/', 'http://fake');
    const authorization = Buffer.from(url.searchParams.get('authorization') ?? '', 'base64').toString('utf8');
    const date = url.searchParams.get('date') ?? '';
    const host = String(request.headers.host ?? '');
    const fields = Object.fromEntries([...authorization.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
    if (!fields.signature || fields.api_key === undefined) return this.refuse(socket, 401, 'Unauthorized');
    if (fields.api_key !== this.apiKey || fields.algorithm !== 'hmac-sha256' || fields.headers !== 'host date request-line') {
      return this.refuse(socket, 401, 'HMAC signature cannot be verified');
    }
    if (url.searchParams.get('host') !== host) return this.refuse(socket, 401, 'HMAC signature does not match');
    const skew = Math.abs(Date.now() - Date.parse(date));
    if (!(skew < 300_000))
      return this.refuse(
        socket,
        403,
        'HMAC signature cannot be verified, a valid date or x-date header is required for HMAC Authentication',
      );
    const expected = createHmac('sha256', this.apiSecret)
      .update(`host: ${host}\ndate: ${date}\nGET ${url.pathname} HTTP/1.1`)
      .digest('base64');
    if (expected !== fields.signature) return this.refuse(socket, 401, 'HMAC signature does not match');
    this.wss.handleUpgrade(request, socket, head, (ws) => ws.once('message', (data) => this.chat(ws, url.pathname, data.toString())));
  }

  private chat(ws: WebSocket, path: string, text: string): void {
    const frame = JSON.parse(text) as Record<string, any>;
    this.calls.push({ path, frame });
    const sid = `cht000${this.calls.length}`;
    const send = (value: unknown) => ws.send(JSON.stringify(value));
    const fail = (code: number, message: string) => {
      send({ header: { code, message, sid, status: 2 } });
      ws.close();
    };
    const version = /^\/(v[\d.]+)\/chat$/.exec(path)?.[1] ?? '';
    if (frame.header?.app_id !== this.appId) return fail(10313, 'appid cannot match apikey');
    if (frame.parameter?.chat?.domain !== DOMAINS[version])
      return fail(10404, `domain ${frame.parameter?.chat?.domain} is invalid for ${version}`);
    if (this.errorCode) return fail(this.errorCode.code, this.errorCode.message);
    const pieces = this.reply.split(/(?<=\s)/);
    pieces.forEach((content, seq) => {
      const last = seq === pieces.length - 1;
      const call = last && this.functionCall && frame.payload?.functions ? { function_call: this.functionCall } : {};
      send({
        header: { code: 0, message: 'Success', sid, status: last ? 2 : seq === 0 ? 0 : 1 },
        payload: {
          choices: { status: last ? 2 : seq === 0 ? 0 : 1, seq, text: [{ content, role: 'assistant', index: 0, ...call }] },
          ...(last
            ? {
                usage: {
                  text: {
                    question_tokens: 4,
                    prompt_tokens: this.promptTokens,
                    completion_tokens: this.completionTokens,
                    total_tokens: this.promptTokens + this.completionTokens,
                  },
                },
              }
            : {}),
        },
      });
      if (seq === 0 && this.errorAfterFirst) pieces.length = 1;
    });
    if (this.errorAfterFirst) return fail(10013, 'input content is not compliant (audit)');
    ws.close();
  }
}
