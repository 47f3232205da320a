import { StreamLineSplitter } from './stream-line-splitter';

/** `event` is '' when the upstream sent no `event:` field (Gemini); `data` joins multi-line data with '\n'. */
export type SseEventHandler = (event: string, data: string) => void;

/**
 * Server-sent events framing (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
 * for upstreams whose events are converted (Claude, Gemini): fields `event` and `data`, comments and `id` /
 * `retry` ignored, one optional space after the colon, an event dispatched on a blank line.
 */
export class SseEventDecoder {
  private readonly splitter: StreamLineSplitter;
  private event = '';
  private data: string | null = null;
  private readonly onLine = (buffer: Buffer, start: number, end: number): void => {
    if (start === end) return this.dispatch();
    const line = buffer.toString('utf8', start, end);
    const colon = line.indexOf(':');
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 32) value = value.slice(1);
    if (field === 'data') this.data = this.data === null ? value : `${this.data}\n${value}`;
    else if (field === 'event') this.event = value;
  };

  constructor(
    maxLineBytes: number,
    private readonly onEvent: SseEventHandler,
  ) {
    this.splitter = new StreamLineSplitter(maxLineBytes);
  }

  /** Returns false when a line is over the size limit. */
  push(chunk: Uint8Array): boolean {
    return this.splitter.push(chunk, this.onLine);
  }

  /** End of body: an event missing only its closing blank line is still delivered. */
  flush(): void {
    this.splitter.flush(this.onLine);
    this.dispatch();
  }

  private dispatch(): void {
    const data = this.data;
    const event = this.event;
    this.data = null;
    this.event = '';
    if (data !== null) this.onEvent(event, data);
  }
}
