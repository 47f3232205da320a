import { countPromptTokens } from '#server/relay/pipeline/relay-request';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import {
  available,
  bodyText,
  chargesAfter,
  chatBody,
  DRAIN_MS,
  gpt35Quota,
  headPosition,
  honestFixture,
  projectedViews,
  sleep,
  startChat,
  upstreamReceived,
} from './relay-honest-charges-support';

jest.setTimeout(60_000);

/**
 * Honest charges when things end early (issue 19 §5), plain answers: a client that leaves after the upstream has the
 * request is charged what the upstream reports (or the estimate), within the drain bound; a request the upstream
 * never received is charged nothing; every charge says where its usage came from and why the request ended, in the
 * event, the log's `other` and the statement line.
 */
describe('relay: honest charges when a plain request ends early', () => {
  const context = honestFixture();

  it('a completed request records usage from the upstream and the end "completed", in the event, the log and the statement', async () => {
    const head = await headPosition(context.target);
    const { response } = startChat(context, chatBody());
    const answer = await response;
    expect(answer.statusCode).toBe(200);
    expect(JSON.parse(await bodyText(answer)).choices[0].message.content).toBe(context.openai.reply);
    const [charge] = await chargesAfter(context.target, head);
    expect(charge.data).toMatchObject({ promptTokens: 12, completionTokens: 7, usageSource: 'upstream', endReason: 'completed' });
    const views = await projectedViews(context.target, charge.position);
    expect(views.other).toMatchObject({ usage_source: 'upstream', end_reason: 'completed' });
    expect(views.ref).toEqual({
      token_id: context.alice.tokenId,
      token_name: 'alice-token',
      model: 'gpt-3.5-turbo',
      usage_source: 'upstream',
      end_reason: 'completed',
    });
  });

  it('a client that leaves before the answer headers is charged what the upstream then reports (client_gone)', async () => {
    const before = await available(context);
    const head = await headPosition(context.target);
    const received = context.openai.requests.length;
    const abandoned = context.openai.abandoned.length;
    context.openai.next({ delayMs: 500 });
    const { leave, response } = startChat(context, chatBody());
    await upstreamReceived(context, received + 1);
    leave();
    await expect(response).rejects.toThrow();
    const charges = await chargesAfter(context.target, head);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({
      promptTokens: 12,
      completionTokens: 7,
      quota: gpt35Quota(12, 7),
      usageSource: 'upstream',
      endReason: 'client_gone',
    });
    // The upstream answered in full: the relay read it to the end instead of hanging up on it.
    expect(context.openai.abandoned.length).toBe(abandoned);
    expect(await available(context)).toBe(before - gpt35Quota(12, 7));
    const views = await projectedViews(context.target, charges[0].position);
    expect(views.other).toMatchObject({ usage_source: 'upstream', end_reason: 'client_gone' });
    expect(views.ref).toMatchObject({ usage_source: 'upstream', end_reason: 'client_gone' });
  });

  it('an upstream that reports no usage for a client that left is charged the local count (estimated)', async () => {
    const head = await headPosition(context.target);
    const received = context.openai.requests.length;
    context.openai.next({ delayMs: 500, omitUsage: true });
    const body = chatBody();
    const { leave } = startChat(context, body);
    await upstreamReceived(context, received + 1);
    leave();
    const [charge] = await chargesAfter(context.target, head);
    const prompt = countPromptTokens('chat', body, 'gpt-3.5-turbo');
    const completion = countTextTokens(context.openai.reply, 'gpt-3.5-turbo');
    expect(prompt).toBeGreaterThan(0);
    expect(prompt).not.toBe(12);
    expect(charge.data).toMatchObject({
      promptTokens: prompt,
      completionTokens: completion,
      quota: gpt35Quota(prompt, completion),
      usageSource: 'estimated',
      endReason: 'client_gone',
    });
    expect((await projectedViews(context.target, charge.position)).other).toMatchObject({
      usage_source: 'estimated',
      end_reason: 'client_gone',
    });
  });

  it('an upstream still silent when the drain bound runs out is aborted then, and the prompt estimate is charged', async () => {
    const head = await headPosition(context.target);
    const received = context.openai.requests.length;
    const abandoned = context.openai.abandoned.length;
    context.openai.next({ neverAnswer: true });
    const body = chatBody();
    const { leave } = startChat(context, body);
    await upstreamReceived(context, received + 1);
    const left = Date.now();
    leave();
    await sleep(DRAIN_MS / 2);
    // Half-way through the bound the relay is still waiting for the upstream, and has charged nothing yet.
    expect(context.openai.abandoned.length).toBe(abandoned);
    const [charge] = await chargesAfter(context.target, head);
    expect(context.openai.abandoned.length).toBe(abandoned + 1);
    const waited = context.openai.abandoned.at(-1)!.at - left;
    expect(waited).toBeGreaterThanOrEqual(DRAIN_MS - 50);
    expect(waited).toBeLessThan(DRAIN_MS + 2_000);
    const prompt = countPromptTokens('chat', body, 'gpt-3.5-turbo');
    expect(charge.data).toMatchObject({
      promptTokens: prompt,
      completionTokens: 0,
      quota: gpt35Quota(prompt, 0),
      usageSource: 'estimated',
      endReason: 'client_gone',
    });
    expect((await projectedViews(context.target, charge.position)).ref).toMatchObject({
      usage_source: 'estimated',
      end_reason: 'client_gone',
    });
  });

  it('an upstream that cannot be reached (connection refused) never received the request: nothing is charged or held', async () => {
    const before = await available(context);
    const head = await headPosition(context.target);
    const { response } = startChat(context, chatBody({ model: 'refused-model' }));
    const answer = await response;
    expect(answer.statusCode).toBe(500);
    expect(JSON.parse(await bodyText(answer)).error).toMatchObject({ code: 'do_request_failed' });
    expect(await chargesAfter(context.target, head, 0)).toEqual([]);
    expect(await available(context)).toBe(before);
  });

  it('an upstream error answer for a client that left is no charge either, and frees the reservation', async () => {
    const before = await available(context);
    const head = await headPosition(context.target);
    const received = context.openai.requests.length;
    context.openai.next({ delayMs: 400, status: 500 });
    const { leave } = startChat(context, chatBody());
    await upstreamReceived(context, received + 1);
    leave();
    await sleep(800);
    expect(await chargesAfter(context.target, head, 0)).toEqual([]);
    expect(await available(context)).toBe(before);
  });
});
