import type { UpstreamRequestInput, UpstreamResult } from '../upstream-adapter';
import { ConvertRequestError } from '../upstream-errors';

/** Whisper on Workers AI takes the audio file's raw bytes as the body (the reference did the same). */
export function buildCloudflareTranscription(input: UpstreamRequestInput): { body: Uint8Array; contentType: string } {
  const file = input.multipart?.files.find((candidate) => candidate.field === 'file');
  if (!file) throw new ConvertRequestError('field file is required');
  return { body: file.data, contentType: 'application/octet-stream' };
}

/**
 * `{result: {text, vtt}}` → what OpenAI answers for the client's `response_format`: `text` as plain text, `vtt` as
 * WebVTT when Workers AI returned it, anything else `{text}`. The transcript is counted locally, as new-api does.
 */
export function convertCloudflareTranscription(
  status: number,
  result: Record<string, unknown>,
  input: UpstreamRequestInput,
): UpstreamResult {
  const text = typeof result.text === 'string' ? result.text : '';
  const format = input.multipart?.fields.find(([name]) => name === 'response_format')?.[1] ?? 'json';
  const plain = (body: string, contentType: string): UpstreamResult => ({
    ok: true,
    status,
    body,
    contentType,
    passthrough: false,
    usage: null,
    completionText: text,
  });
  if (format === 'text') return plain(text, 'text/plain; charset=utf-8');
  if (format === 'vtt' && typeof result.vtt === 'string') return plain(result.vtt, 'text/vtt; charset=utf-8');
  return plain(JSON.stringify({ text }), 'application/json');
}
