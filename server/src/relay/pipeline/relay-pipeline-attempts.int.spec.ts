import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelOutcome } from '../../modules/channel-health';
import { classifyOutcome, decideOnOutcome } from '../../modules/channel-health/decider/channel-health.decider';
import { channel, json, pipelineHarness } from './relay-pipeline.int-harness';

jest.setTimeout(30_000);

/** Retries over tiers, the error a client gets when every attempt failed, what is reported to the health rules, and the timeouts. */
describe('RelayPipelineService: the attempt loop (real ledger and Redis, in-test auth and routing)', () => {
  const pipeline = pipelineHarness();
  const { primary, backup, outcomes, chat, charges, available } = pipeline;

  it('retries a 500 on the next tier and settles once with the channel path', async () => {
    primary.next({ status: 500 });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(200);
    expect((await json(response)).choices[0].message.content).toBe(backup.reply);
    const rows = await charges(response.headers.get('x-oneapi-request-id')!);
    expect(rows).toHaveLength(1);
    expect(rows[0].data).toMatchObject({ channelId: 2, channelPath: [1, 2] });
  });

  it('answers the last upstream error (not 获取重试渠道失败) when every attempt fails, releasing the reservation', async () => {
    const before = await available();
    primary.next({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limit_exceeded' } } });
    backup.next({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limit_exceeded' } } });
    backup.next({ status: 429, body: { error: { message: 'slow down', type: 'rate_limit', param: null, code: 'rate_limit_exceeded' } } });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(429);
    const body = await json(response);
    expect(body.error).toEqual({
      message: expect.stringMatching(/^当前分组上游负载已饱和，请稍后再试 \(request id: /),
      type: 'rate_limit',
      param: '',
      code: 'rate_limit_exceeded',
    });
    expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
    expect(await available()).toBe(before);
  });

  it('does not retry a 400 on an OpenAI channel, nor a forced channel', async () => {
    primary.next({ status: 400, body: { error: { message: 'bad', type: 'invalid_request_error', param: 'x', code: null } } });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    expect((await json(response)).error).toMatchObject({ type: 'invalid_request_error', param: 'x', code: null });

    backup.next({ status: 500 });
    const forced = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }, 'sk-good-2');
    expect(forced.status).toBe(500);
  });

  it('answers an unreachable upstream with 500 do_request_failed and charges nothing', async () => {
    pipeline.router.channels = [channel(9, 'http://127.0.0.1:1', 0)];
    try {
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(500);
      expect((await json(response)).error).toMatchObject({
        type: 'new_api_error',
        code: 'do_request_failed',
        message: expect.stringMatching(/^请求上游地址失败/),
      });
      expect(await charges(response.headers.get('x-oneapi-request-id')!)).toHaveLength(0);
    } finally {
      pipeline.router.channels = [channel(1, primary.baseUrl, 10), channel(2, backup.baseUrl, 0)];
    }
  });

  it("sends the channel's header overrides upstream and passes the upstream's headers back, hop-by-hop ones left out", async () => {
    const seen: Array<Record<string, string | string[] | undefined>> = [];
    const upstream = createServer((request, response) => {
      seen.push(request.headers);
      request.resume();
      request.on('end', () => {
        const body = JSON.stringify({
          id: 'chatcmpl-h',
          object: 'chat.completion',
          created: 1,
          model: 'gpt-3.5-turbo',
          choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 },
        });
        response.writeHead(200, {
          'content-type': 'application/json',
          'x-upstream-trace': ['t-1', 't-2'],
          'proxy-connection': 'keep-alive',
          'content-length': Buffer.byteLength(body),
        });
        response.end(body);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const { port } = upstream.address() as AddressInfo;
    pipeline.router.channels = [
      channel(7, `http://127.0.0.1:${port}`, 0, { headerOverride: { 'X-Org-Id': 'org-7', 'X-Count': 3 } as never }),
    ];
    try {
      const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
      expect(response.status).toBe(200);
      expect(seen).toHaveLength(1);
      expect(seen[0]['x-org-id']).toBe('org-7');
      expect(seen[0]['x-count']).toBeUndefined(); // only string values are sent
      expect(response.headers.get('x-upstream-trace')).toBe('t-1'); // the first of a repeated header
      expect(response.headers.get('proxy-connection')).toBeNull();
      expect(response.headers.get('content-length')).toBe(String((await response.arrayBuffer()).byteLength));
    } finally {
      pipeline.router.channels = [channel(1, primary.baseUrl, 10), channel(2, backup.baseUrl, 0)];
      await new Promise((resolve) => upstream.close(resolve));
    }
  });

  describe('RELAY_TIMEOUT and STREAMING_TIMEOUT (1 s here)', () => {
    const send = (body: Record<string, unknown>) =>
      fetch(`${pipeline.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json', 'x-test-pipeline': 'timeouts' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], ...body }),
      });

    it('RELAY_TIMEOUT: an upstream slower than it to answer is a failed attempt of that channel; the next one answers', async () => {
      const reported = outcomes.length;
      primary.next({ delayMs: 3_000 });
      const started = Date.now();
      const response = await send({});
      expect(response.status).toBe(200);
      expect((await json(response)).choices[0].message.content).toBe(backup.reply);
      // undici's timers tick every 500 ms for long timeouts: the attempt gives up between 1 and 1.5 s, not at 3 s.
      expect(Date.now() - started).toBeLessThan(2_500);
      expect(outcomes.slice(reported)).toEqual([
        expect.objectContaining({ channelId: 1, ok: false, status: 500 }),
        expect.objectContaining({ channelId: 2, ok: true }),
      ]);
      const rows = await charges(response.headers.get('x-oneapi-request-id')!);
      expect(rows).toHaveLength(1);
      expect(rows[0].data).toMatchObject({ channelId: 2, channelPath: [1, 2] });
    });

    it('STREAMING_TIMEOUT: a stream silent for longer is cut with an error event, billed for what was delivered (the prompt)', async () => {
      primary.chunkDelayMs = 1_600;
      try {
        const response = await send({ stream: true });
        expect(response.status).toBe(200);
        const text = await response.text();
        expect(text).toMatch(/"error"/);
        expect(text).not.toContain('[DONE]');
        await pipeline.settlement.drain();
        const rows = await charges(response.headers.get('x-oneapi-request-id')!);
        expect(rows).toHaveLength(1);
        // The fake sent its role chunk, then went silent before the first word: the prompt, and no completion.
        expect(rows[0].data).toMatchObject({ completionTokens: 0, promptTokens: expect.any(Number) });
        expect(rows[0].data.promptTokens).toBeGreaterThan(0);
      } finally {
        primary.chunkDelayMs = 0;
      }
    });
  });

  it('reports an upstream error code and type apart, so a fatal type with a code disables the channel', async () => {
    primary.next({ status: 400, body: { error: { message: 'key revoked', type: 'authentication_error', param: null, code: 'x' } } });
    const response = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] });
    expect(response.status).toBe(400);
    const reported = outcomes.at(-1)!;
    expect(reported).toEqual({
      channelId: 1,
      ok: false,
      status: 400,
      errorCode: 'x',
      errorType: 'authentication_error',
      message: 'key revoked',
      source: 'relay',
    });
    const outcome: ChannelOutcome = reported;
    expect(classifyOutcome(outcome, 1)).toBe('fatal');
    const policy = {
      autoDisableEnabled: true,
      autoEnableEnabled: true,
      responseTimeThresholdSeconds: 0,
      minFailures: 20,
      failureRate: 0.5,
      windowSeconds: 60,
    };
    expect(decideOnOutcome(outcome, { status: 1, autoBan: true, type: 1 }, { total: 1, failures: 1 }, policy)).toMatchObject({
      kind: 'disable',
      reasonCode: 'fatal_upstream_error',
      reason: 'key revoked',
    });
  });
});
