import { ConvertedTextStream, type Json } from '../shared/converted-text-stream';
import type { ClientBytes, StreamCloseCause, StreamSummary, UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { mapTencentFinishReason, tencentError, tencentUsage } from './tencent-api';

/**
 * Hunyuan's stream: SSE `data:` events, each `{Id, Created, Choices: [{Delta: {Role, Content}, FinishReason}], Usage}`
 * with no terminator; the event whose FinishReason is set ends the answer and carries the final usage. An error is
 * not a stream: Tencent answers HTTP 200 with one JSON `{Response: {Error}}` body, so a body that opens with `{` is
 * read whole and ends the stream as an upstream error. A `data:` event carrying an `Error` or an `ErrorMsg` (the
 * moderation stop) does too.
 */
export class TencentStreamTransformer extends ConvertedTextStream {
  /** null until the first non-blank byte tells SSE from a JSON error body. */
  private jsonBody: Buffer[] | null = null;
  private sniffed = false;

  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'sse');
  }

  override push(chunk: Uint8Array): ClientBytes | null {
    if (!this.sniffed) {
      const text = Buffer.from(chunk).toString('utf8').trimStart();
      if (text === '') return null;
      this.sniffed = true;
      if (text.startsWith('{')) this.jsonBody = [];
    }
    if (this.jsonBody) {
      this.jsonBody.push(Buffer.from(chunk));
      return null;
    }
    return super.push(chunk);
  }

  override finish(cause: StreamCloseCause): StreamSummary {
    if (this.jsonBody && !this.stopped) this.onEvent('', Buffer.concat(this.jsonBody).toString('utf8'));
    return super.finish(cause);
  }

  protected onEvent(_event: string, data: string): void {
    const event = this.json(data);
    if (!event) return;
    const error = tencentError(event);
    if (error) return this.failWith(error);
    const moderation = event.ErrorMsg as Json | undefined;
    if (moderation && typeof moderation === 'object' && moderation.Code && moderation.Code !== 0) {
      return this.failWith({
        message: String(moderation.Msg ?? 'moderation stop'),
        type: 'tencent_error',
        param: '',
        code: String(moderation.Code),
      });
    }
    if (typeof event.Id === 'string' && event.Id !== '') this.progress.identity.id = `chatcmpl-${event.Id}`;
    const choice = Array.isArray(event.Choices) ? (event.Choices[0] as Json | undefined) : undefined;
    if (!choice) return;
    const delta = (choice.Delta ?? {}) as Json;
    this.role();
    if (typeof delta.Content === 'string') this.text(delta.Content);
    const finish = mapTencentFinishReason(choice.FinishReason);
    if (finish) {
      this.reportUsage(tencentUsage(event.Usage));
      this.finishWith(finish);
      this.terminate();
    }
  }
}
