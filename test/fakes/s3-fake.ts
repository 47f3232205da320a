import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A TEST FIXTURE: a fake S3-compatible object store speaking the part of the S3 REST protocol the ledger archive uses,
 * path-style (`/<bucket>/<key>`), as MinIO or any S3-compatible server answers it:
 *
 * - `PUT /<bucket>/<key>`: stores the body whole (`Content-Length` required, as S3 requires it for a plain PUT);
 *   answers 200 with the object's `ETag` (quoted MD5). An `aws-chunked` body (a streaming signature or a checksum
 *   trailer) is refused with 501 NotImplemented, as S3-compatible servers that lack it answer.
 * - `HEAD /<bucket>`: 200 for a bucket it has (HeadBucket), 404 otherwise.
 * - `GET` and `HEAD /<bucket>/<key>`: the object with `Content-Length`, `ETag`, `Last-Modified`; a missing key is 404
 *   (`NoSuchKey` XML for GET, no body for HEAD, as S3 does); an unknown bucket is 404 `NoSuchBucket`.
 *
 * Every request must carry a SigV4 `Authorization` header naming the access key id given (the signature itself is
 * not checked). Objects are kept in memory (`objects`, by `bucket/key`) so a spec can read or damage them; `failNext`
 * makes the next requests of a method answer an S3 error.
 */
export class S3Fake {
  readonly objects = new Map<string, { body: Buffer; modified: Date }>();
  readonly requests: Array<{ method: string; path: string }> = [];
  private readonly failures: Array<{ method: string; status: number; code: string }> = [];
  private server?: Server;

  constructor(
    private readonly buckets: readonly string[],
    readonly accessKeyId = 'fake-access-key',
    readonly secretAccessKey = 'fake-secret-key',
  ) {}

  async start(): Promise<this> {
    this.server = createServer((request, response) => void this.handle(request, response));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `times` requests of `method` answer `status` with S3 error `code`. */
  failNext(method: 'GET' | 'HEAD' | 'PUT', status: number, code: string, times = 1): void {
    for (let index = 0; index < times; index++) this.failures.push({ method, status, code });
  }

  /** The keys of a bucket, sorted. */
  keys(bucket: string): string[] {
    return [...this.objects.keys()]
      .filter((name) => name.startsWith(`${bucket}/`))
      .map((name) => name.slice(bucket.length + 1))
      .sort();
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const method = request.method ?? 'GET';
    const url = new URL(request.url ?? '/', 'http://s3.local');
    const path = decodeURIComponent(url.pathname);
    this.requests.push({ method, path });
    const slash = path.indexOf('/', 1);
    const bucket = slash < 0 ? path.slice(1) : path.slice(1, slash);
    const key = slash < 0 ? '' : path.slice(slash + 1);

    const authorization = String(request.headers.authorization ?? '');
    if (!authorization.startsWith(`AWS4-HMAC-SHA256 Credential=${this.accessKeyId}/`)) {
      return this.error(response, method, 403, 'InvalidAccessKeyId', 'The AWS access key Id you provided does not exist in our records.');
    }
    const failure = this.failures.findIndex((entry) => entry.method === method);
    if (failure >= 0) {
      const [{ status, code }] = this.failures.splice(failure, 1);
      return this.error(response, method, status, code, `injected ${code}`);
    }
    if (!this.buckets.includes(bucket)) return this.error(response, method, 404, 'NoSuchBucket', 'The specified bucket does not exist');
    if (!key && method === 'HEAD') {
      response.writeHead(200, { 'Content-Length': '0', 'x-amz-bucket-region': 'us-east-1' }).end();
      return;
    }
    if (!key) return this.error(response, method, 501, 'NotImplemented', 'bucket operations other than HEAD are not part of this fake');

    if (method === 'PUT') {
      const encoding = String(request.headers['content-encoding'] ?? '');
      const sha = String(request.headers['x-amz-content-sha256'] ?? '');
      if (encoding.includes('aws-chunked') || sha.startsWith('STREAMING-')) {
        return this.error(response, method, 501, 'NotImplemented', 'aws-chunked uploads are not supported by this server');
      }
      if (request.headers['content-length'] === undefined)
        return this.error(response, method, 411, 'MissingContentLength', 'length required');
      this.objects.set(`${bucket}/${key}`, { body, modified: new Date() });
      response.writeHead(200, { ETag: etag(body), 'Content-Length': '0' }).end();
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      const object = this.objects.get(`${bucket}/${key}`);
      if (!object) return this.error(response, method, 404, 'NoSuchKey', 'The specified key does not exist.');
      response.writeHead(200, {
        'Content-Length': String(object.body.length),
        'Content-Type': 'application/octet-stream',
        ETag: etag(object.body),
        'Last-Modified': object.modified.toUTCString(),
      });
      response.end(method === 'GET' ? object.body : undefined);
      return;
    }
    this.error(response, method, 405, 'MethodNotAllowed', `${method} is not part of this fake`);
  }

  private error(response: ServerResponse, method: string, status: number, code: string, message: string): void {
    if (method === 'HEAD') {
      response.writeHead(status, { 'Content-Length': '0' }).end();
      return;
    }
    const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`;
    response.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': String(Buffer.byteLength(xml)) }).end(xml);
  }
}

const etag = (body: Buffer) => `"${createHash('md5').update(body).digest('hex')}"`;
