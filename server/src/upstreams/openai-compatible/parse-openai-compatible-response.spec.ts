import { fixture } from '../testing/upstream-test-kit';
import type { RelayMode, UpstreamResponse } from '../upstream-adapter';
import { parseOpenAICompatibleResponse } from './parse-openai-compatible-response';

const json = (body: string | Buffer, status = 200): UpstreamResponse => ({
  status,
  contentType: 'application/json',
  body: Buffer.from(body),
});
const parse = (mode: RelayMode, response: UpstreamResponse) => parseOpenAICompatibleResponse(mode, response);

describe('parseOpenAICompatibleResponse', () => {
  it('passes a chat answer through untouched and reads its usage, cached tokens included', () => {
    const body = fixture('openai-compatible', 'chat-completion.json');
    const response = json(body);
    const result = parse('chat', response);
    expect(result).toEqual({
      ok: true,
      status: 200,
      body: body,
      contentType: 'application/json',
      passthrough: true,
      usage: { prompt_tokens: 1117, completion_tokens: 46, total_tokens: 1163, prompt_tokens_details: { cached_tokens: 1024 } },
      completionText: null,
    });
    // The very buffer the upstream sent: no re-serialisation on the way back.
    expect(result.ok && result.body).toBe(response.body);
  });

  it('gives the text to count when usage is missing or zero, tool calls included', () => {
    const withoutUsage = JSON.parse(fixture('openai-compatible', 'chat-completion-tool-calls.json').toString());
    withoutUsage.usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
    expect(parse('chat', json(JSON.stringify(withoutUsage)))).toMatchObject({
      ok: true,
      usage: null,
      completionText: 'get_weather{"location":"Paris, France"}',
    });
    const completion = JSON.parse(fixture('openai-compatible', 'completion.json').toString());
    delete completion.usage;
    expect(parse('completions', json(JSON.stringify(completion)))).toMatchObject({
      usage: null,
      completionText: '\n\nThis is indeed a test',
    });
  });

  it('reads embeddings usage without parsing the vectors, and rerank usage from Jina and SiliconCloud shapes', () => {
    expect(parse('embeddings', json(fixture('openai-compatible', 'embeddings.json')))).toMatchObject({
      usage: { prompt_tokens: 8, completion_tokens: 0, total_tokens: 8 },
      completionText: null,
    });
    expect(parse('rerank', json(fixture('openai-compatible', 'rerank-jina.json')))).toMatchObject({
      usage: { prompt_tokens: 38, total_tokens: 38 },
    });
    expect(parse('rerank', json(fixture('openai-compatible', 'rerank-siliconcloud.json')))).toMatchObject({
      usage: { prompt_tokens: 12, completion_tokens: 0 },
    });
  });

  it('gives the transcript as the text to count, for JSON and plain-text response formats', () => {
    expect(parse('audio-transcriptions', json(fixture('openai-compatible', 'transcription.json')))).toMatchObject({
      completionText: expect.stringMatching(/^Imagine the wildest idea/),
    });
    const srt = {
      status: 200,
      contentType: 'text/plain; charset=utf-8',
      body: Buffer.from('1\n00:00:00,000 --> 00:00:02,000\nHallo Welt\n'),
    };
    // Subtitle formats bill their cue text only (as new-api's getTextFromSRT), not cue numbers and timings.
    expect(parse('audio-translations', srt)).toMatchObject({ completionText: 'Hallo Welt' });
  });

  it('passes binary speech and image answers through without usage', () => {
    const mp3 = { status: 200, contentType: 'audio/mpeg', body: Buffer.from([0xff, 0xf3, 0x44, 0xc4]) };
    expect(parse('audio-speech', mp3)).toEqual({
      ok: true,
      status: 200,
      body: mp3.body,
      contentType: 'audio/mpeg',
      passthrough: true,
      usage: null,
      completionText: null,
    });
    expect(parse('images-generations', json(fixture('openai-compatible', 'image-generation.json')))).toMatchObject({
      ok: true,
      usage: null,
    });
    expect(parse('moderations', json(fixture('openai-compatible', 'moderation.json')))).toMatchObject({ ok: true, usage: null });
  });

  it('maps error statuses, and an error object inside a 200 body keeps status 200 (not retried)', () => {
    expect(parse('chat', json(fixture('openai-compatible', 'error-rate-limit.json'), 429))).toEqual({
      ok: false,
      status: 429,
      error: expect.objectContaining({ type: 'requests', code: 'rate_limit_exceeded' }),
    });
    expect(parse('chat', json('{"error":{"message":"quota exhausted","type":"insufficient_quota","param":null,"code":null}}'))).toEqual({
      ok: false,
      status: 200,
      error: { message: 'quota exhausted', type: 'insufficient_quota', param: null, code: null },
    });
    expect(parse('chat', json('{"id":"x","error":null,"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}')).ok).toBe(true);
  });
});

describe('transcriptions: the text that is billed', () => {
  const text = (body: string, contentType = 'text/plain; charset=utf-8'): UpstreamResponse => ({
    status: 200,
    contentType,
    body: Buffer.from(body),
  });

  it('bills the text of json, verbose_json and text answers, and the upstream token usage when it reports one', () => {
    expect(parse('audio-transcriptions', json('{"text":"Hello there."}'))).toMatchObject({
      ok: true,
      usage: null,
      completionText: 'Hello there.',
    });
    expect(parse('audio-translations', json('{"task":"translate","duration":1.5,"text":"Hi.","segments":[]}'))).toMatchObject({
      usage: null,
      completionText: 'Hi.',
    });
    expect(parse('audio-transcriptions', json('{"text":"Hi.","usage":{"type":"duration","seconds":2}}'))).toMatchObject({
      usage: null,
      completionText: 'Hi.',
    });
    expect(
      parse('audio-transcriptions', json('{"text":"Hi.","usage":{"type":"tokens","input_tokens":14,"output_tokens":3,"total_tokens":17}}')),
    ).toMatchObject({
      usage: { prompt_tokens: 14, completion_tokens: 3, total_tokens: 17 },
      completionText: null,
    });
    expect(parse('audio-transcriptions', text('Plain transcript --> with an arrow.\n'))).toMatchObject({
      completionText: 'Plain transcript --> with an arrow.\n',
    });
  });

  it('keeps only the cue text of srt and vtt answers, and passes the body through untouched', () => {
    const srt =
      '1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:00:01,500 --> 00:00:03,000\nGeneral Kenobi.\nYou are a bold one.\n\n';
    const result = parse('audio-transcriptions', text(srt));
    expect(result).toMatchObject({
      ok: true,
      passthrough: true,
      usage: null,
      completionText: 'Hello there.\nGeneral Kenobi.\nYou are a bold one.',
    });
    expect(result.ok && Buffer.from(result.body as Uint8Array).toString()).toBe(srt);
    const vtt = 'WEBVTT\n\n00:00.000 --> 00:01.500\nHello there.\n\n00:01.500 --> 00:03.000 align:start\nBye.\n';
    expect(parse('audio-translations', text(vtt, 'text/vtt'))).toMatchObject({ completionText: 'Hello there.\nBye.' });
  });
});
