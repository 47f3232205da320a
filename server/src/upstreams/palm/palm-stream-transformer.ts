import { ConvertedTextStream } from '../shared/converted-text-stream';
import { streamLineTooLongError } from '../shared/stream-progress';
import type { ClientBytes, StreamCloseCause, StreamSummary, UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { palmNoCandidates } from './palm-api';

/**
 * PaLM cannot stream: a stream is the whole generateMessage answer, read to the end and sent as a role chunk, one
 * content chunk and the finish chunk, as new-api did. Its usage is counted locally.
 */
export class PalmStreamTransformer extends ConvertedTextStream {
  private readonly pieces: Buffer[] = [];
  private size = 0;

  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'lines');
  }

  override push(chunk: Uint8Array): ClientBytes | null {
    if (this.stopped) return null;
    this.size += chunk.byteLength;
    if (this.size > this.settings.maxStreamLineBytes)
      this.progress.fail('invalid_stream', streamLineTooLongError(this.settings.maxStreamLineBytes));
    else this.pieces.push(Buffer.from(chunk));
    return null;
  }

  override finish(cause: StreamCloseCause): StreamSummary {
    if (!this.stopped && cause === 'eof') this.onEvent('', Buffer.concat(this.pieces).toString('utf8'));
    return super.finish(cause);
  }

  protected onEvent(_event: string, data: string): void {
    const body = this.json(data);
    if (!body) return; // not JSON: finish() reports the stream as cut
    const candidates = Array.isArray(body.candidates) ? body.candidates : [];
    if (candidates.length === 0) return this.failWith(palmNoCandidates(body));
    this.role();
    const content = candidates[0]?.content;
    if (typeof content === 'string') this.text(content);
    this.finishWith('stop');
    this.terminate();
  }
}
