import type { OpenAIError, TokenUsage } from '../upstream-adapter';

/** One answer frame of the Spark chat WebSocket. */
export interface SparkFrame {
  header?: { code?: number; message?: string; sid?: string; status?: number };
  payload?: {
    choices?: {
      status?: number;
      seq?: number;
      text?: Array<{ content?: string; role?: string; index?: number; function_call?: { name?: string; arguments?: string } }>;
    };
    usage?: { text?: { prompt_tokens?: number; completion_tokens?: number; total_tokens?: number; question_tokens?: number } };
  };
}

/** The last frame of an answer: `header.status` (or `payload.choices.status`) 2. */
export function isLastFrame(frame: SparkFrame): boolean {
  return frame.header?.status === 2 || frame.payload?.choices?.status === 2;
}

export function frameError(frame: SparkFrame): OpenAIError | null {
  const code = frame.header?.code;
  if (code === undefined || code === 0) return null;
  return { message: frame.header?.message || `iFlytek Spark error ${code}`, type: 'xunfei_error', param: null, code: String(code) };
}

/** The HTTP status a Spark error code stands for (iFlytek's error-code table). */
export function statusOfSparkCode(code: number): number {
  if ([11201, 11202, 11203].includes(code)) return 429; // daily quota, QPS, concurrency
  if (code === 11200) return 403; // the APPID has no licence for this model, or its quota is gone
  if ([10013, 10014, 10019, 10907, 10163, 10160, 10161, 10222].includes(code)) return 400; // content audit, bad or too long input
  return 500;
}

/** Usage of the last frame (Spark reports it once, complete). */
export function frameUsage(frame: SparkFrame): TokenUsage | null {
  const usage = frame.payload?.usage?.text;
  if (!usage) return null;
  const prompt = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  if (prompt === 0 && completion === 0) return null;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: usage.total_tokens ?? prompt + completion };
}

export function frameText(frame: SparkFrame): { content: string; call: { name: string; arguments: string } | null } {
  let content = '';
  let call: { name: string; arguments: string } | null = null;
  for (const part of frame.payload?.choices?.text ?? []) {
    content += part.content ?? '';
    if (part.function_call?.name) call = { name: part.function_call.name, arguments: part.function_call.arguments ?? '{}' };
  }
  return { content, call };
}

/** Frames as the transport hands them on: `data: <frame>` lines, one per WebSocket message. */
export function readFrames(body: Uint8Array): SparkFrame[] {
  const frames: SparkFrame[] = [];
  for (const line of Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8').split('\n')) {
    if (!line.startsWith('data:')) continue;
    try {
      frames.push(JSON.parse(line.slice(5)) as SparkFrame);
    } catch {
      // a partial frame at a cut
    }
  }
  return frames;
}
