import { getStoredUser } from '../../lib/storage';

export const PLAYGROUND_PATH = '/pg/chat/completions';

export interface PlaygroundPayload {
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  stream: true;
  model: string;
  group: string;
  /** Left out at 0 ("no bound"): new-api's request struct drops a zero before the upstream sees it. */
  max_tokens?: number;
  temperature: number;
}

/** A refusal of the playground call; `expired` when the session is gone (HTTP 401). */
export class PlaygroundError extends Error {
  constructor(
    message: string,
    readonly expired = false,
  ) {
    super(message);
    this.name = 'PlaygroundError';
  }
}

/** The words of an error answer: the relay's `error.message`, the console's `message`, else the raw text. */
export const errorTextOf = (text: string): string => {
  try {
    const body = JSON.parse(text) as { message?: unknown; error?: { message?: unknown } };
    if (typeof body.error?.message === 'string' && body.error.message) return body.error.message;
    if (typeof body.message === 'string' && body.message) return body.message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim();
};

interface ChunkBody {
  choices?: Array<{ delta?: { content?: unknown }; message?: { content?: unknown } }>;
  error?: { message?: unknown };
}

/** One SSE event's data: a delta to append, the end marker, or nothing (a usage-only chunk). */
const readEvent = (data: string, onDelta: (text: string) => void): boolean => {
  if (data === '[DONE]') return true;
  let chunk: ChunkBody;
  try {
    chunk = JSON.parse(data) as ChunkBody;
  } catch {
    throw new PlaygroundError(data);
  }
  if (chunk.error) throw new PlaygroundError(typeof chunk.error.message === 'string' ? chunk.error.message : data);
  const content = chunk.choices?.[0]?.delta?.content;
  if (typeof content === 'string' && content) onDelta(content);
  return false;
};

/** The `data:` lines of one SSE event, joined as the SSE format says. */
const eventData = (event: string): string | null => {
  const lines = event
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).replace(/^ /, ''));
  return lines.length ? lines.join('\n') : null;
};

/**
 * Posts the conversation to the playground route with the session (cookie and New-API-User header) and feeds each
 * streamed `choices[0].delta.content` to `onDelta` until `[DONE]` or the end of the stream. An error answer throws
 * a PlaygroundError holding the server's words; aborting `signal` throws the fetch's AbortError.
 */
export const streamPlayground = async (payload: PlaygroundPayload, signal: AbortSignal, onDelta: (text: string) => void): Promise<void> => {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  const user = getStoredUser();
  if (user) headers['New-API-User'] = String(user.id);
  const response = await fetch(PLAYGROUND_PATH, { method: 'POST', headers, credentials: 'include', body: JSON.stringify(payload), signal });
  const type = response.headers.get('content-type') ?? '';
  if (!response.ok || !type.includes('text/event-stream')) {
    const text = await response.text();
    if (response.status === 401) throw new PlaygroundError(errorTextOf(text), true);
    if (!response.ok) throw new PlaygroundError(errorTextOf(text) || `${response.status} ${response.statusText}`);
    // A JSON answer to a stream request: the whole reply at once.
    const body = JSON.parse(text) as ChunkBody;
    const content = body.choices?.[0]?.message?.content;
    if (typeof content === 'string') onDelta(content);
    return;
  }
  if (!response.body) return;
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    buffer += decoder.decode(value, { stream: !done });
    const events = buffer.split(/\r?\n\r?\n/);
    buffer = done ? '' : (events.pop() ?? '');
    for (const event of events) {
      const data = eventData(event);
      if (data !== null && readEvent(data, onDelta)) {
        await reader.cancel();
        return;
      }
    }
    if (done) return;
  }
};
