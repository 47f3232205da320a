import { ConvertedTextStream } from '../shared/converted-text-stream';
import type { UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { difyUsage } from './dify-api';

/**
 * Dify's chat stream (SSE `data:` events with an `event` field): `message` and `agent_message` carry answer
 * pieces; `message_end` carries `metadata.usage` and ends the answer; `error` ends the stream as an upstream error
 * (new-api stopped silently, so a failed answer looked complete). `agent_thought`, `message_file`,
 * `message_replace`, `ping`, `tts_message*` and the workflow and node events are not answer text and are skipped.
 */
export class DifyStreamTransformer extends ConvertedTextStream {
  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'sse');
  }

  protected onEvent(_event: string, data: string): void {
    const event = this.json(data);
    if (!event) return;
    switch (event.event) {
      case 'message':
      case 'agent_message':
        if (typeof event.conversation_id === 'string' && event.conversation_id !== '') this.progress.identity.id = event.conversation_id;
        if (typeof event.answer === 'string') this.text(event.answer);
        return;
      case 'message_end':
        this.reportUsage(difyUsage(event.metadata));
        this.finishWith('stop');
        return this.terminate();
      case 'error':
        return this.failWith({
          message: typeof event.message === 'string' && event.message !== '' ? event.message : 'Dify stream error',
          type: 'dify_error',
          param: '',
          code: typeof event.code === 'string' ? event.code : null,
        });
      default:
        return;
    }
  }
}
