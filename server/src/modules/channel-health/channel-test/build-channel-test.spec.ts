import { assertTestable, channelTestInput, channelTestQuota, chooseTestModel, type TestableChannel } from './build-channel-test';

const channel: TestableChannel = {
  id: 3,
  type: 1,
  key: 'sk-k',
  baseUrl: null,
  other: null,
  openaiOrganization: null,
  models: ['gpt-4o-mini', 'alias'],
  testModel: null,
  modelMapping: { alias: 'gpt-4o-2024-08-06' },
};

describe('channel test request', () => {
  it('picks ?model= (mapped), else test_model, else the first model, else gpt-3.5-turbo (unmapped)', () => {
    expect(chooseTestModel(channel, 'alias')).toEqual({ model: 'alias', upstreamModel: 'gpt-4o-2024-08-06' });
    expect(chooseTestModel({ ...channel, testModel: 'alias' }, undefined)).toEqual({ model: 'alias', upstreamModel: 'alias' });
    expect(chooseTestModel(channel, '')).toEqual({ model: 'gpt-4o-mini', upstreamModel: 'gpt-4o-mini' });
    expect(chooseTestModel({ ...channel, models: [] }, undefined)).toEqual({ model: 'gpt-3.5-turbo', upstreamModel: 'gpt-3.5-turbo' });
  });

  it('sends one "hi" with max_tokens 1 (max_completion_tokens for o1-*), not streamed', () => {
    expect(channelTestInput(channel, 'gpt-4o-mini').body).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 1,
    });
    expect(channelTestInput(channel, 'o1-mini').body).toEqual({
      model: 'o1-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_completion_tokens: 1,
    });
    expect(channelTestInput(channel, 'gpt-4o-mini')).toMatchObject({ relayMode: 'chat', path: '/v1/chat/completions', isStream: false });
  });

  it('refuses Midjourney, Midjourney Plus and Suno channels', () => {
    expect(() => assertTestable(2)).toThrow('midjourney channel test is not supported');
    expect(() => assertTestable(5)).toThrow('midjourney channel test is not supported');
    expect(() => assertTestable(36)).toThrow('suno channel test is not supported');
    expect(() => assertTestable(1)).not.toThrow();
  });

  it('prices the log row like new-api: group ratio 1, at least 1 in ratio mode, the price in price mode', () => {
    const ratio = { modelPrice: -1, modelRatio: 0.075, completionRatio: 4 };
    // (8 + round(1 × 4)) × 0.075 = 0.9 → 1
    expect(channelTestQuota(ratio, { promptTokens: 8, completionTokens: 1 }, 500_000)).toBe(1);
    // (1000 + 500 × 4) × 0.075 = 225
    expect(channelTestQuota(ratio, { promptTokens: 1000, completionTokens: 500 }, 500_000)).toBe(225);
    expect(channelTestQuota(ratio, { promptTokens: 0, completionTokens: 0 }, 500_000)).toBe(1);
    expect(channelTestQuota({ ...ratio, modelRatio: 0 }, { promptTokens: 8, completionTokens: 1 }, 500_000)).toBe(0);
    expect(
      channelTestQuota({ modelPrice: 0.04, modelRatio: 30, completionRatio: 1 }, { promptTokens: 8, completionTokens: 1 }, 500_000),
    ).toBe(20_000);
  });
});
