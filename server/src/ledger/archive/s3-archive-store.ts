import { createReadStream } from 'node:fs';
import { mkdir, readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { GetObjectCommand, HeadBucketCommand, HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ArchiveStore } from './archive-store';

/** An `s3://bucket/prefix` location: the bucket and the key prefix (no leading or trailing slash; may be empty). */
export interface S3Location {
  bucket: string;
  prefix: string;
}

/** `s3://bucket[/prefix]`, or null when the text is not one (another scheme, no bucket). */
export function parseS3Url(url: string): S3Location | null {
  const match = /^s3:\/\/([^/?#]+)(\/[^?#]*)?$/i.exec(url.trim());
  if (!match) return null;
  return { bucket: match[1], prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '').replace(/\/{2,}/g, '/') };
}

export interface S3ArchiveOptions extends S3Location {
  /**
   * A local folder of this archive alone where a segment is written before its upload (a month can be large); a run
   * empties it of what a run that died left there.
   */
  stagingDir: string;
  /** An S3-compatible endpoint (MinIO, Ceph, R2, a test's fake); unset: AWS S3 of `region`. */
  endpoint?: string;
  region: string;
  /** Path-style requests (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle: boolean;
  /** Both or neither; neither: the AWS SDK's default chain (AWS_ACCESS_KEY_ID…, a profile, an instance or pod role). */
  accessKeyId?: string;
  secretAccessKey?: string;
}

const isNotFound = (error: unknown) => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure?.name === 'NotFound' || failure?.name === 'NoSuchKey' || failure?.$metadata?.httpStatusCode === 404;
};

const PUT_ATTEMPTS = 4;

/** A failure worth another attempt: the server's (5xx), throttling, or no answer at all (a network error). */
const isTransient = (error: unknown) => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  const status = failure?.$metadata?.httpStatusCode;
  return status === undefined || status >= 500 || status === 429 || failure?.name === 'SlowDown' || failure?.name === 'RequestTimeout';
};

/**
 * The archive under a bucket's prefix, through @aws-sdk/client-s3 (the SDK the Bedrock adapter already brings: its
 * signing, retries and credential chain, rather than hand-written SigV4). One object per file, same names as in a
 * folder (`<prefix>/events-YYYY-MM.ndjson.gz`, `<prefix>/manifest.json`). A PUT replaces an object whole or not at
 * all, which is what the folder's write-then-rename gives; an acknowledged PUT is durable in S3's model. Checksums
 * are computed and checked only where S3 requires them: the SDK's default (a CRC32 trailer on every upload) is not
 * understood by every S3-compatible server, and each segment carries its own sha256 in the table and the manifest.
 */
export class S3ArchiveStore implements ArchiveStore {
  readonly location: string;
  private readonly client: S3Client;

  constructor(private readonly options: S3ArchiveOptions) {
    this.location = `s3://${options.bucket}${options.prefix ? `/${options.prefix}` : ''}`;
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(options.accessKeyId && options.secretAccessKey
        ? { credentials: { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey } }
        : {}),
    });
  }

  private key(name: string): string {
    return this.options.prefix ? `${this.options.prefix}/${name}` : name;
  }

  /** The staging folder, and the bucket checked reachable with these credentials: a run fails before its snapshot, not after. */
  async prepare(): Promise<void> {
    await mkdir(this.options.stagingDir, { recursive: true });
    // A run holds the archive's lock, so a staged file found now was left by a run that died: it is not needed.
    for (const file of await readdir(this.options.stagingDir)) {
      if (/\.tmp-\d+$/.test(file)) await this.discard(join(this.options.stagingDir, file));
    }
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
      const why = status === 404 ? 'does not exist' : status === 403 ? 'refuses these credentials' : `cannot be reached (${String(error)})`;
      throw new Error(`ledger archive: bucket ${this.options.bucket} of ${this.location} ${why}`);
    }
  }

  stagingPath(name: string): string {
    return join(this.options.stagingDir, `${name}.tmp-${process.pid}`);
  }

  /**
   * One PUT of the staged file. The SDK does not retry a request whose body is a stream (it cannot rewind it), so a
   * transient failure (5xx, throttling, a dropped connection) is retried here with the file opened again.
   */
  async putFile(name: string, staged: string): Promise<void> {
    try {
      const { size } = await stat(staged);
      for (let attempt = 1; ; attempt++) {
        try {
          await this.client.send(
            new PutObjectCommand({ Bucket: this.options.bucket, Key: this.key(name), Body: createReadStream(staged), ContentLength: size }),
          );
          return;
        } catch (error) {
          if (attempt >= PUT_ATTEMPTS || !isTransient(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt));
        }
      }
    } finally {
      await this.discard(staged);
    }
  }

  async putText(name: string, text: string): Promise<void> {
    const body = Buffer.from(text, 'utf8');
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.key(name),
        Body: body,
        ContentLength: body.length,
        ContentType: 'application/json',
      }),
    );
  }

  async read(name: string): Promise<Buffer | null> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(name) }));
      if (!answer.Body) return Buffer.alloc(0);
      return Buffer.from(await answer.Body.transformToByteArray());
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async size(name: string): Promise<number | null> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: this.key(name) }));
      return answer.ContentLength ?? 0;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async openRead(name: string): Promise<Readable> {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: this.key(name) }));
      if (!answer.Body) throw new Error(`ledger archive: ${this.location}/${name} has no body`);
      return answer.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) {
        throw Object.assign(new Error(`ENOENT: no such object ${this.location}/${name}`), { code: 'ENOENT' });
      }
      throw error;
    }
  }

  async discard(staged: string): Promise<void> {
    await unlink(staged).catch(() => undefined);
  }

  /** Closes the client's kept-alive connections. */
  close(): void {
    this.client.destroy();
  }
}
