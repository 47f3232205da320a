import type { UpstreamAdapter, UpstreamCallAnswer, UpstreamFailure, UpstreamRequestInput } from '#server/upstreams/upstream-adapter';
import type { UpstreamAnswerBody } from '../../upstream-client/upstream-http-client';

/** A body already read whole, served again to the stream transformer. */
export class BufferedBody implements UpstreamAnswerBody {
  private taken = false;

  constructor(private readonly data: Buffer) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.taken) return;
    this.taken = true;
    if (this.data.length > 0) yield this.data;
  }

  async bytes(): Promise<Buffer> {
    return this.data;
  }

  async text(): Promise<string> {
    return this.data.toString('utf8');
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    return new Uint8Array(this.data).buffer;
  }

  destroy(): void {
    this.taken = true;
  }

  ready(): boolean {
    return true;
  }
}

/**
 * Some upstreams (Tencent, MiniMax) refuse a stream request with a 2xx JSON error body instead of a stream. For an
 * adapter with `refusedStream`, a JSON answer to a stream request is read whole first: a refusal is returned as the
 * attempt's failure (retried, reported to channel health, never charged), anything else is streamed from the bytes
 * read. Returns the answer to stream, a failure, or 'broken' when the body broke off.
 */
export async function checkRefusedStream(
  adapter: UpstreamAdapter,
  input: UpstreamRequestInput,
  answer: UpstreamCallAnswer,
): Promise<UpstreamCallAnswer | UpstreamFailure | 'broken'> {
  if (!adapter.refusedStream || !answer.contentType.includes('json')) return answer;
  let body: Buffer;
  try {
    body = await answer.body.bytes();
  } catch {
    return 'broken';
  }
  const refusal = adapter.refusedStream(input, { status: answer.status, contentType: answer.contentType, body });
  return refusal ?? { ...answer, body: new BufferedBody(body) };
}
