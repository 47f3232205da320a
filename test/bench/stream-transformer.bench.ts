/**
 * CPU per streamed answer in the OpenAI-compatible stream transformer, in plain node:
 *
 *   node -r ./test/support/swc-register.js test/bench/stream-transformer.bench.ts [events=23] [rounds=5] [streams per round]
 *
 * Builds the kind of stream the bench's fake upstream sends (a role chunk, content deltas, a finish chunk and a usage
 * chunk, then [DONE]) with `events` events in all, and pushes it through a fresh transformer as one chunk, as a fast
 * upstream delivers it. Prints µs per stream for each round (after a warm-up) and their median. With many events in one
 * chunk a per-event cost that grows with the chunk shows at once: try 23 and 2300.
 */
import { OpenAICompatibleStreamTransformer } from '#server/upstreams/openai-compatible/openai-compatible-stream-transformer';
import { chatInput, testSettings } from '#server/upstreams/testing/upstream-test-kit';

const events = Math.max(4, Number(process.argv[2] ?? 23));
const rounds = Math.max(1, Number(process.argv[3] ?? 5));

const head = { id: 'chatcmpl-bench', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini' };
const line = (body: Record<string, unknown>) => `data: ${JSON.stringify({ ...head, ...body })}\n\n`;
let sse = line({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
for (let i = 0; i < events - 3; i++) sse += line({ choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] });
sse += line({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
sse += line({ choices: [], usage: { prompt_tokens: 12, completion_tokens: events - 3, total_tokens: events + 9 } });
sse += 'data: [DONE]\n\n';
const chunk = Buffer.from(sse);
const input = chatInput({ isStream: true, clientWantsUsage: false });
const settings = testSettings();

function once(): void {
  const transformer = new OpenAICompatibleStreamTransformer(input, settings);
  transformer.push(chunk);
  const summary = transformer.finish('eof');
  if (summary.end !== 'done' || summary.usage?.completion_tokens !== events - 3)
    throw new Error(`unexpected summary: ${JSON.stringify(summary)}`);
}

// By default about 1.5 s of work per round whatever the size: the count scales down as the chunk grows.
const perRound = Number(process.argv[4]) > 0 ? Number(process.argv[4]) : Math.max(20, Math.round(50_000 * (23 / events)));
for (let i = 0; i < perRound / 2; i++) once();
const results: number[] = [];
for (let round = 0; round < rounds; round++) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < perRound; i++) once();
  results.push(Number(process.hrtime.bigint() - started) / 1000 / perRound);
}
const sorted = [...results].sort((a, b) => a - b);
process.stdout.write(
  `${events} events in one ${chunk.length}-byte chunk, ${perRound} streams a round: ${results.map((us) => us.toFixed(1)).join(' / ')} µs per stream; median ${sorted[sorted.length >> 1].toFixed(1)} µs (${(sorted[sorted.length >> 1] / events).toFixed(2)} µs per event)\n`,
);
