import { ConvertedTextStream } from '../shared/converted-text-stream';
import type {
  ClientBytes,
  StreamCloseCause,
  StreamSummary,
  StreamTransformer,
  TrailerOptions,
  UpstreamRequestInput,
  UpstreamSettings,
} from '../upstream-adapter';
import { miniMaxError } from './minimax-errors';

/** A JSON body answered to a stream request: MiniMax's `base_resp` error, read whole. */
class MiniMaxJsonBody extends ConvertedTextStream {
  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'lines');
  }

  read(text: string): void {
    this.onEvent('', text);
  }

  protected onEvent(_event: string, data: string): void {
    const body = this.json(data);
    if (!body) return;
    const error = miniMaxError(body);
    if (error) this.failWith(error);
    else this.failWith({ message: 'MiniMax answered a stream request without a stream', type: 'minimax_error', param: '', code: null });
  }
}

/**
 * MiniMax's v2 stream is OpenAI's chunk format, forwarded by the OpenAI-compatible transformer. Its errors are not:
 * an error answered to a stream request is one JSON body (HTTP 200) with `base_resp`, so a body opening with `{` is
 * read whole and ends the stream as an upstream error with nothing forwarded.
 */
export class MiniMaxStreamTransformer implements StreamTransformer {
  private mode: 'unknown' | 'sse' | 'json' = 'unknown';
  private readonly pieces: Buffer[] = [];
  private jsonBody: MiniMaxJsonBody | null = null;

  constructor(
    private readonly inner: StreamTransformer,
    private readonly input: UpstreamRequestInput,
    private readonly settings: UpstreamSettings,
  ) {}

  push(chunk: Uint8Array): ClientBytes | null {
    if (this.mode === 'unknown') {
      const text = Buffer.from(chunk).toString('utf8').trimStart();
      if (text === '') return null;
      this.mode = text.startsWith('{') ? 'json' : 'sse';
    }
    if (this.mode === 'sse') return this.inner.push(chunk);
    this.pieces.push(Buffer.from(chunk));
    return null;
  }

  finish(cause: StreamCloseCause): StreamSummary {
    if (this.mode !== 'json') return this.inner.finish(cause);
    this.jsonBody ??= new MiniMaxJsonBody(this.input, this.settings);
    this.jsonBody.read(Buffer.concat(this.pieces).toString('utf8'));
    return this.jsonBody.finish(cause);
  }

  trailer(options: TrailerOptions): ClientBytes {
    return this.jsonBody ? this.jsonBody.trailer(options) : this.inner.trailer(options);
  }
}
