import { rebuildProjectionsIn } from '#server/cli/rebuild-projections';
import { countPromptTokens } from '#server/relay/pipeline/relay-request';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import { compareTables, snapshotTables } from '../support/compare-tables';
import {
  bodyText,
  chargesAfter,
  chatBody,
  DRAIN_MS,
  firstChunk,
  headPosition,
  honestFixture,
  projectedViews,
  startChat,
  upstreamReceived,
} from './relay-honest-charges-support';
import { dataSource, projected } from './users-support';

jest.setTimeout(60_000);

/** Honest charges when a stream ends early (issue 19 §5): client gone, cut by the upstream, silent upstream, the drain bound. */
describe('relay: honest charges when a stream ends early', () => {
  const context = honestFixture();
  const streamBody = () => chatBody({ stream: true });

  it('a client that leaves before the stream starts is charged the usage the upstream then reports (client_gone)', async () => {
    const head = await headPosition(context.target);
    const received = context.openai.requests.length;
    context.openai.next({ delayMs: 500 });
    const { leave } = startChat(context, streamBody());
    await upstreamReceived(context, received + 1);
    leave();
    const charges = await chargesAfter(context.target, head);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({
      isStream: true,
      promptTokens: 12,
      completionTokens: 7,
      usageSource: 'upstream',
      endReason: 'client_gone',
    });
  });

  it('a client that leaves mid-stream: the stream is read to its end and charged with the upstream usage', async () => {
    const head = await headPosition(context.target);
    const abandoned = context.openai.abandoned.length;
    context.openai.chunkDelayMs = 150;
    try {
      const { leave, response } = startChat(context, streamBody());
      await firstChunk(await response);
      leave();
      const [charge] = await chargesAfter(context.target, head);
      expect(charge.data).toMatchObject({ promptTokens: 12, completionTokens: 7, usageSource: 'upstream', endReason: 'client_gone' });
      expect(context.openai.abandoned.length).toBe(abandoned);
      expect((await projectedViews(context.target, charge.position)).other).toMatchObject({
        usage_source: 'upstream',
        end_reason: 'client_gone',
      });
    } finally {
      context.openai.chunkDelayMs = 0;
    }
  });

  it('a stream without usage that the client left is charged what was counted through its end (estimated)', async () => {
    const head = await headPosition(context.target);
    context.openai.chunkDelayMs = 150;
    try {
      context.openai.next({ omitUsage: true });
      const body = streamBody();
      const { leave, response } = startChat(context, body);
      await firstChunk(await response);
      leave();
      const [charge] = await chargesAfter(context.target, head);
      expect(charge.data).toMatchObject({
        promptTokens: countPromptTokens('chat', body, 'gpt-3.5-turbo'),
        // The whole reply, though the client saw only its start.
        completionTokens: countTextTokens(context.openai.reply, 'gpt-3.5-turbo'),
        usageSource: 'estimated',
        endReason: 'client_gone',
      });
    } finally {
      context.openai.chunkDelayMs = 0;
    }
  });

  it('a stream the upstream cuts mid-way is charged what was counted, as cut_stream', async () => {
    const head = await headPosition(context.target);
    context.openai.next({ cutAfterChunks: 2 });
    const { response } = startChat(context, streamBody());
    const text = await bodyText(await response);
    expect(text).toMatch(/"error":\{"message":"upstream stream ended before the response was complete/);
    const [charge] = await chargesAfter(context.target, head);
    expect(charge.data.completionTokens).toBeGreaterThan(0);
    expect(charge.data.completionTokens).toBeLessThan(countTextTokens(context.openai.reply, 'gpt-3.5-turbo'));
    expect(charge.data).toMatchObject({ usageSource: 'estimated', endReason: 'cut_stream' });
    expect((await projectedViews(context.target, charge.position)).ref).toMatchObject({
      usage_source: 'estimated',
      end_reason: 'cut_stream',
    });
  });

  it('a stream the upstream leaves silent past STREAMING_TIMEOUT is charged what was counted, as timeout', async () => {
    const head = await headPosition(context.target);
    context.openai.next({ stallAfterChunks: 2 });
    const { response } = startChat(context, streamBody());
    const text = await bodyText(await response);
    expect(text).toMatch(/"error":/);
    const [charge] = await chargesAfter(context.target, head);
    expect(charge.data.completionTokens).toBeGreaterThan(0);
    expect(charge.data).toMatchObject({ usageSource: 'estimated', endReason: 'timeout' });
    expect((await projectedViews(context.target, charge.position)).other).toMatchObject({
      usage_source: 'estimated',
      end_reason: 'timeout',
    });
  });

  it('a stream that never ends is read on for the drain bound after the client left, then aborted and charged the count so far', async () => {
    const head = await headPosition(context.target);
    const abandoned = context.openai.abandoned.length;
    context.openai.next({ endlessEveryMs: 100 });
    const { leave, response } = startChat(context, streamBody());
    await firstChunk(await response);
    const left = Date.now();
    leave();
    const [charge] = await chargesAfter(context.target, head, 1, DRAIN_MS + 10_000);
    expect(context.openai.abandoned.length).toBe(abandoned + 1);
    const waited = context.openai.abandoned.at(-1)!.at - left;
    expect(waited).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    expect(waited).toBeLessThan(DRAIN_MS + 2_000);
    // The reply plus about DRAIN_MS / 100 " more" chunks read after the client left.
    expect(charge.data.completionTokens).toBeGreaterThan(countTextTokens(context.openai.reply, 'gpt-3.5-turbo') + 5);
    expect(charge.data).toMatchObject({ usageSource: 'estimated', endReason: 'client_gone' });
  });

  it('the log rows and statement lines rebuilt from the ledger equal the live ones, end reasons and usage sources included', async () => {
    await projected(context.target);
    const tables = ['logs', 'statement_lines'];
    const live = await snapshotTables(dataSource(context.target), tables);
    expect(live.logs.some((row) => row.includes('end_reason'))).toBe(true);
    await rebuildProjectionsIn(context.target.app, { projections: ['logs', 'statement'], waitSeconds: 10 }, () => undefined);
    const comparison = await compareTables(live, dataSource(context.target), tables);
    expect(comparison.summary).toBe(comparison.equal ? comparison.summary : 'equal');
    expect(comparison.equal).toBe(true);
  });
});
