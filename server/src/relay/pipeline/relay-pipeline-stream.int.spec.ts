import { dataSource, projected } from '#test/e2e/users-support';
import { pipelineHarness } from './relay-pipeline.int-harness';
import { chargeOfRow } from '#test/support/quota-consumed-fixture';

jest.setTimeout(30_000);

/** Streams as written to the client, a cut stream's bill, and a client that goes away mid-call. */
describe('RelayPipelineService: streamed answers (real ledger and Redis, in-test auth and routing)', () => {
  const pipeline = pipelineHarness();
  const { primary, backup, outcomes, clientWrites, chat, charges, available } = pipeline;

  it('streams, hides the usage chunk unless asked, and bills a cut stream for what was delivered', async () => {
    const plain = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(plain.headers.get('content-type')).toBe('text/event-stream');
    const text = await plain.text();
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(text).not.toMatch(/"usage":\{/);
    const [settled] = await charges(plain.headers.get('x-oneapi-request-id')!);
    expect(settled.data).toMatchObject({
      isStream: true,
      promptTokens: 12,
      completionTokens: 7,
      usageSource: 'upstream',
      endReason: 'completed',
    });

    primary.next({ cutAfterChunks: 2 });
    const cut = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const events = (await cut.text()).split('\n\n').filter(Boolean);
    expect(events.at(-1)).toMatch(/^data: \{"error":\{"message":"upstream stream ended before the response was complete \(request id: /);
    const rows = await charges(cut.headers.get('x-oneapi-request-id')!);
    expect(rows).toHaveLength(1);
    expect(rows[0].data.completionTokens).toBeGreaterThan(0);
    expect(rows[0].data.completionTokens).toBeLessThan(7);
    expect(rows[0].data).toMatchObject({ usageSource: 'estimated', endReason: 'cut_stream' });
    expect(rows[0].data.channelPath).toEqual([1]);
  });

  it('sends the first event of a stream on its own, before transforming the rest of an upstream read that holds them all', async () => {
    primary.next({ oneWrite: true });
    clientWrites.length = 0;
    const streamed = await chat({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const text = await streamed.text();
    const [written] = clientWrites;
    // The first write is exactly the role chunk; the rest of the read follows in one more write, then the end.
    expect(written[0]).toMatch(/^data: \{"id":"chatcmpl-fakestream".*"delta":\{"role":"assistant","content":""\}.*\}\n\n$/);
    expect(written[0].split('\n\n').filter(Boolean)).toHaveLength(1);
    expect(written.length).toBeLessThanOrEqual(3);
    expect(written.join('')).toBe(text.replace(/data: \[DONE\]\n\n$/, '').slice(0, written.join('').length));
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(await charges(streamed.headers.get('x-oneapi-request-id')!)).toHaveLength(1);
  });

  describe('a client that goes away (a user pressing "stop") is no failure of the channel', () => {
    const settleDown = () => new Promise((resolve) => setTimeout(resolve, 400));

    it('non-streaming: the upstream that has the request answers, that answer is charged (client_gone), no other channel is tried', async () => {
      const reported = outcomes.length;
      const backupCalls = backup.requests.length;
      const primaryCalls = primary.requests.length;
      const before = await available();
      primary.next({ delayMs: 300 });
      const controller = new AbortController();
      const pending = fetch(`${pipeline.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-3.5-turbo', messages: [{ role: 'user', content: 'hi' }] }),
        signal: controller.signal,
      });
      setTimeout(() => controller.abort(), 100);
      await expect(pending).rejects.toThrow();
      await settleDown();
      await pipeline.settlement.drain();
      // The channel answered: a success, not a failure.
      expect(outcomes.slice(reported).map((outcome) => outcome.ok)).toEqual([true]);
      expect(backup.requests.length).toBe(backupCalls);
      expect(primary.requests.length).toBe(primaryCalls + 1);
      const [row] = await dataSource(pipeline.target).query(
        `SELECT event_id, stream_id, data FROM events WHERE type = 'QuotaConsumed' ORDER BY position DESC LIMIT 1`,
      );
      const charge = { data: chargeOfRow(row) };
      expect(charge.data).toMatchObject({ promptTokens: 12, completionTokens: 7, usageSource: 'upstream', endReason: 'client_gone' });
      await projected(pipeline.target);
      expect(await available()).toBe(before - charge.data.quota);
    });

    it('streaming: a stream the client left is not reported as a failure; it is read to its end and billed with its usage', async () => {
      const reported = outcomes.length;
      primary.chunkDelayMs = 100;
      try {
        const controller = new AbortController();
        const response = await fetch(`${pipeline.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: 'Bearer sk-good', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'gpt-3.5-turbo', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
          signal: controller.signal,
        });
        const requestId = response.headers.get('x-oneapi-request-id')!;
        const reader = response.body!.getReader();
        await reader.read();
        controller.abort();
        await settleDown();
        expect(outcomes.slice(reported).filter((outcome) => !outcome.ok)).toEqual([]);
        await pipeline.settlement.drain();
        const rows = await charges(requestId);
        expect(rows).toHaveLength(1);
        expect(rows[0].data).toMatchObject({ promptTokens: 12, completionTokens: 7, usageSource: 'upstream', endReason: 'client_gone' });
      } finally {
        primary.chunkDelayMs = 0;
      }
    });
  });
});
