import type { Json } from '../shared/converted-text-stream';
import { ConvertedTextStream } from '../shared/converted-text-stream';
import { openAIErrorFromObject } from '../shared/map-upstream-error';
import type { UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { cohereUsage, mapCohereFinishReason } from './cohere-api';

/**
 * Cohere's v1 chat stream: one JSON event per line (not SSE). `stream-start` carries the generation id,
 * `text-generation` the text, `stream-end` (is_finished) the finish reason and, in `response.meta.billed_units`,
 * the usage. A `stream-end` with finish reason ERROR, ERROR_LIMIT or USER_CANCEL ends the stream as an upstream
 * error; so does a line with a top-level `message` and no event type (an error body sent mid-stream).
 */
export class CohereStreamTransformer extends ConvertedTextStream {
  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'lines');
  }

  protected onEvent(_event: string, data: string): void {
    const event = this.json(data);
    if (!event) return;
    switch (event.event_type) {
      case 'stream-start':
        if (typeof event.generation_id === 'string') this.progress.identity.id = `chatcmpl-${event.generation_id}`;
        return this.role();
      case 'text-generation':
        if (typeof event.text === 'string') this.text(event.text);
        return;
      case 'stream-end':
        return this.end(event);
      case undefined:
        if (typeof event.message === 'string') this.failWith(openAIErrorFromObject({ message: event.message, type: 'cohere_error' }));
        return;
      default:
        return; // search results, citations, tool events: not text
    }
  }

  private end(event: Json): void {
    const response = (event.response ?? {}) as Json;
    this.reportUsage(cohereUsage(response.meta));
    const reason = event.finish_reason ?? response.finish_reason;
    const mapped = mapCohereFinishReason(reason);
    if (mapped === null) {
      const message =
        typeof response.text === 'string' && response.text !== '' && reason === 'ERROR' ? response.text : `Cohere stopped: ${reason}`;
      return this.failWith({ message, type: 'cohere_error', param: '', code: String(reason) });
    }
    this.finishWith(mapped);
    this.terminate();
  }
}
