import { ConvertedTextStream, type Json } from '../shared/converted-text-stream';
import type { UpstreamRequestInput, UpstreamSettings } from '../upstream-adapter';
import { difyUsage } from './dify-api';

const textField = (object: unknown, key: string): string => {
  if (typeof object !== 'object' || object === null) return '';
  const value = (object as Json)[key];
  return typeof value === 'string' ? value : '';
};

/**
 * Dify's chat stream (SSE `data:` events with an `event` field), mapped as new-api maps it:
 * - `message` and `agent_message` carry answer pieces;
 * - with DIFY_DEBUG (on by default, as new-api), `workflow_started` is the text `Workflow: <workflow_id>\n` and
 *   `node_started` the text `Node: <node_id>\n` (new-api's only rendering of workflow progress);
 * - `message_end` carries `metadata.usage` (the charged usage) and ends the answer;
 * - `error`, and a `workflow_finished` whose status is `failed` (with its `error`), end the stream as an upstream
 *   error (new-api stopped silently on `error`, so a failed answer looked complete);
 * - `agent_thought` (the agent's reasoning and tool calls, whose answer text follows in `agent_message`),
 *   `node_finished`, a successful `workflow_finished` (its `total_tokens` are not split into prompt and completion;
 *   `message_end` follows with the usage), `message_file`, `message_replace`, `ping` and `tts_message*` emit nothing,
 *   as in new-api (which sent an empty chunk for each).
 */
export class DifyStreamTransformer extends ConvertedTextStream {
  private readonly debug: boolean;
  private idSettled = false;

  constructor(input: UpstreamRequestInput, settings: UpstreamSettings) {
    super(input, settings, 'sse');
    this.debug = settings.difyDebug;
  }

  protected onEvent(_event: string, data: string): void {
    const event = this.json(data);
    if (!event) return;
    switch (event.event) {
      case 'message':
      case 'agent_message':
        if (typeof event.answer === 'string') this.emitText(event, event.answer);
        return;
      case 'workflow_started':
        if (this.debug) this.emitText(event, `Workflow: ${textField(event.data, 'workflow_id')}\n`);
        return;
      case 'node_started':
        if (this.debug) this.emitText(event, `Node: ${textField(event.data, 'node_id')}\n`);
        return;
      case 'workflow_finished': {
        if (textField(event.data, 'status') !== 'failed') return;
        return this.failWith({
          message: textField(event.data, 'error') || 'Dify workflow failed',
          type: 'dify_error',
          param: '',
          code: 'workflow_failed',
        });
      }
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

  /**
   * Text for the client. The chunks' id is the conversation id (as new-api's non-stream answer), taken from the event
   * whose text goes out first (a chatflow's workflow events carry it too) and kept, so every chunk has the same id.
   */
  private emitText(event: Json, text: string): void {
    if (text === '') return;
    if (!this.idSettled) {
      this.idSettled = true;
      if (typeof event.conversation_id === 'string' && event.conversation_id !== '') this.progress.identity.id = event.conversation_id;
    }
    this.text(text);
  }
}
