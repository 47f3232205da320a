import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import { countTextTokens } from '#server/relay/tokenizer/token-counter';
import { DifyFake } from '../fakes/upstreams/dify-fake';
import { chargeCount, chargesOf } from './relay-support';
import { channelTest, expectAutoDisabled, expectOneCharge, messages, miscProviderFixture, streamChat } from './relay-provider-misc-support';

jest.setTimeout(90_000);

/** Dify (37) through the relay with the official SDK against a fake Dify app. */
describe('relay: Dify (type 37)', () => {
  const dify = new DifyFake();
  const context = miscProviderFixture(
    [dify],
    [
      { name: 'dify ok', type: 37, key: 'app-fake', baseUrl: () => dify.baseUrl, models: ['dify-app'] },
      { name: 'dify revoked', type: 37, key: 'app-revoked', baseUrl: () => dify.baseUrl, models: ['dify-old'] },
    ],
  );

  it('answers a plain chat from the flattened query and charges metadata.usage once', async () => {
    const before = dify.requests.length;
    const { data, response } = await context.client.chat.completions.create({ model: 'dify-app', messages }).withResponse();
    expect(data.choices[0]).toMatchObject({ message: { content: dify.reply }, finish_reason: 'stop' });
    expect(data.id).toMatch(/^conv-/);
    expect(JSON.parse(dify.requests[before].body)).toEqual({
      inputs: {},
      query: 'SYSTEM: \nYou are a test.\nUSER: \nSay hello.\n',
      response_mode: 'blocking',
      user: 'api-user',
      auto_generate_name: false,
    });
    await expectOneCharge(context, response.headers.get('x-oneapi-request-id')!, 'dify-app', [30, 8], false);
  });

  const recorded = (name: string) => readFileSync(join(__dirname, '../../server/src/upstreams/dify/__fixtures__', name));

  it('streams message and agent_message events (workflow_started as new-api’s DIFY_DEBUG line), charging the message_end usage once', async () => {
    const run = await streamChat(context, 'dify-app');
    expect(run.text).toBe(`Workflow: wf\n${dify.reply}`);
    expect(run.finish).toBe('stop');
    expect(run.usage).toMatchObject({ prompt_tokens: 30, completion_tokens: 8 });
    await expectOneCharge(context, run.requestId, 'dify-app', [30, 8], true);
  });

  it('a recorded chatflow stream: workflow and node progress as new-api shows it, the answer, and message_end’s usage charged once', async () => {
    dify.playStreamNext(recorded('chatflow-stream.sse'));
    const run = await streamChat(context, 'dify-app');
    expect(run.text).toBe('Workflow: f3a9d2b7-1c6e-4e8f-a5b0-2d7c9e1f4a68\nNode: 1716179000001\nNode: llm\nHello from the flow.');
    expect(run.finish).toBe('stop');
    expect(run.usage).toMatchObject({ prompt_tokens: 21, completion_tokens: 5 });
    await expectOneCharge(context, run.requestId, 'dify-app', [21, 5], true);
  });

  it('a recorded agent stream: agent_thought stays out of the answer, agent_message is the text, message_end’s usage charged', async () => {
    dify.playStreamNext(recorded('agent-stream.sse'));
    const run = await streamChat(context, 'dify-app');
    expect(run.text).toBe('It is 18°C with light rain in Paris.');
    expect(run.usage).toMatchObject({ prompt_tokens: 412, completion_tokens: 37 });
    await expectOneCharge(context, run.requestId, 'dify-app', [412, 37], true);
  });

  it('a recorded failed chatflow: workflow_finished failed is an error the SDK raises, charged the delivered text only', async () => {
    dify.playStreamNext(recorded('chatflow-stream-failed.sse'));
    const { data: stream, response } = await context.client.chat.completions
      .create({ model: 'dify-app', messages, stream: true })
      .withResponse();
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain('Rate limit reached');
    expect(text).toBe('Workflow: f3a9d2b7-1c6e-4e8f-a5b0-2d7c9e1f4a68\nNode: llm\n');
    const charges = await chargesOf(context.target, response.headers.get('x-oneapi-request-id')!);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({ completionTokens: countTextTokens(text, 'dify-app'), isStream: true });
  });

  it('ends the stream with an error the SDK raises when Dify sends an error event, billing what was delivered', async () => {
    dify.failStreamNext('[openai] Rate Limit Error');
    const { data: stream, response } = await context.client.chat.completions
      .create({ model: 'dify-app', messages, stream: true })
      .withResponse();
    let text = '';
    const error = await (async () => {
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    })().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(String((error as Error).message)).toContain('[openai] Rate Limit Error');
    expect(text).toBe('Workflow: wf\nHello ');
    const charges = await chargesOf(context.target, response.headers.get('x-oneapi-request-id')!);
    expect(charges).toHaveLength(1);
    expect(charges[0].data).toMatchObject({
      modelName: 'dify-app',
      completionTokens: countTextTokens('Workflow: wf\nHello ', 'dify-app'),
      isStream: true,
    });
  });

  it('passes the admin channel test through the same adapter', async () => {
    expect(await channelTest(context, 'dify ok')).toEqual({ success: true, message: '', time: expect.any(Number) });
  });

  it('maps a revoked app key to 401, charges nothing and disables the channel', async () => {
    const charges = await chargeCount(context.target);
    const error = await context.client.chat.completions.create({ model: 'dify-old', messages }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((error as InstanceType<typeof OpenAI.APIError>).error).toMatchObject({
      message: expect.stringMatching(/^Access token is invalid \(request id: /),
    });
    expect(await chargeCount(context.target)).toBe(charges);
    await expectAutoDisabled(context, context.channelIds['dify revoked']);
  });
});
