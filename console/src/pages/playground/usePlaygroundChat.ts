import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslate } from 'react-admin';
import { useApiNotify } from '../../hooks/useApiNotify';
import { PlaygroundError, streamPlayground, type PlaygroundPayload } from './playgroundStream';

/** new-api's message states: loading until the first chunk, incomplete while chunks arrive, then complete or error. */
export type MessageStatus = 'loading' | 'incomplete' | 'complete' | 'error';

export interface ChatMessage {
  id: number;
  role: 'user' | 'assistant';
  content: string;
  status?: MessageStatus;
  /** The person stopped the stream: the reply keeps what had arrived. */
  stopped?: boolean;
}

export interface PlaygroundSettings {
  group: string;
  model: string;
  temperature: number;
  maxTokens: string;
  systemPrompt: string;
}

let nextId = 1;

const isAbort = (error: unknown) => error instanceof DOMException && error.name === 'AbortError';

/** The conversation: send (streamed into the last assistant message), stop the stream, clear the context. */
export const usePlaygroundChat = (settings: PlaygroundSettings) => {
  const translate = useTranslate();
  const notify = useApiNotify();
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [streaming, setStreaming] = useState(false);
  const controller = useRef<AbortController | null>(null);

  useEffect(() => () => controller.current?.abort(), []);

  /** Changes the reply being written, unless it is already finished. */
  const updateReply = useCallback((id: number, change: (message: ChatMessage) => ChatMessage) => {
    setMessages((current) =>
      current.map((message) =>
        message.id === id && (message.status === 'loading' || message.status === 'incomplete') ? change(message) : message,
      ),
    );
  }, []);

  const send = useCallback(
    (text: string) => {
      if (controller.current) return;
      const question: ChatMessage = { id: nextId++, role: 'user', content: text };
      const reply: ChatMessage = { id: nextId++, role: 'assistant', content: '', status: 'loading' };
      const history = [...messages, question].filter((message) => message.status !== 'error' && message.content !== '');
      const maxTokens = Number.parseInt(settings.maxTokens, 10) || 0;
      const payload: PlaygroundPayload = {
        messages: [
          ...(settings.systemPrompt !== '' ? [{ role: 'system' as const, content: settings.systemPrompt }] : []),
          ...history.map(({ role, content }) => ({ role, content })),
        ],
        stream: true,
        model: settings.model,
        group: settings.group,
        ...(maxTokens > 0 ? { max_tokens: maxTokens } : {}),
        temperature: settings.temperature,
      };
      setMessages((current) => [...current, question, reply]);
      const abort = new AbortController();
      controller.current = abort;
      setStreaming(true);
      streamPlayground(payload, abort.signal, (delta) =>
        updateReply(reply.id, (message) => ({ ...message, content: message.content + delta, status: 'incomplete' })),
      )
        .then(() => updateReply(reply.id, (message) => ({ ...message, status: 'complete' })))
        .catch((error: unknown) => {
          if (isAbort(error)) {
            updateReply(reply.id, (message) => ({ ...message, status: 'complete', stopped: true }));
            return;
          }
          const expired = error instanceof PlaygroundError && error.expired;
          const words = expired ? translate('app.errors.expired') : error instanceof Error ? error.message : String(error);
          updateReply(reply.id, (message) => ({
            ...message,
            content: message.content ? `${message.content}\n\n${words}` : words,
            status: 'error',
          }));
          if (expired) notify.failure('app.errors.expired');
        })
        .finally(() => {
          if (controller.current !== abort) return;
          controller.current = null;
          setStreaming(false);
        });
    },
    [messages, settings, updateReply, translate, notify],
  );

  /** Ends the stream: the reply keeps what arrived and is complete. */
  const stop = useCallback(() => {
    controller.current?.abort();
    controller.current = null;
    setStreaming(false);
  }, []);

  const clear = useCallback(() => {
    stop();
    setMessages([]);
  }, [stop]);

  return { messages, streaming, send, stop, clear };
};
