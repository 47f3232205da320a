import { channelTestLogRow } from './channel-test-log-row';

describe('channel test log row', () => {
  const ledgerTime = new Date('2024-11-20T10:00:00Z');
  const data = {
    userId: 1,
    username: 'root',
    channelId: 7,
    modelName: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    promptTokens: 8,
    completionTokens: 1,
    quota: 1,
    modelRatio: 0.075,
    completionRatio: 4,
    modelPrice: -1,
    useTimeSeconds: 2,
    createdAt: 1_732_096_000,
  };

  it("is new-api's consume row: user 1, token name and content 模型测试, token 0, not streamed, the test figures", () => {
    expect(channelTestLogRow(data, ledgerTime)).toEqual({
      userId: 1,
      createdAt: 1_732_096_000,
      type: 2,
      content: '模型测试',
      username: 'root',
      tokenName: '模型测试',
      modelName: 'gpt-4o-mini',
      quota: 1,
      promptTokens: 8,
      completionTokens: 1,
      useTime: 2,
      isStream: false,
      channelId: 7,
      tokenId: 0,
      group: '',
      other: JSON.stringify({
        admin_info: { use_channel: ['7'] },
        cache_tokens: 0,
        completion_ratio: 4,
        frt: -1000,
        group_ratio: 1,
        model_price: -1,
        model_ratio: 0.075,
      }),
    });
  });

  it('notes a mapped model, and falls back to the ledger time without a usable createdAt', () => {
    const row = channelTestLogRow({ ...data, modelName: 'alias', upstreamModel: 'gpt-4o-2024-08-06', createdAt: undefined }, ledgerTime);
    expect(row.createdAt).toBe(Math.floor(ledgerTime.getTime() / 1000));
    expect(JSON.parse(row.other)).toMatchObject({ is_model_mapped: true, upstream_model_name: 'gpt-4o-2024-08-06' });
  });

  it('refuses an event without a whole quota rather than writing a wrong row', () => {
    expect(() => channelTestLogRow({ ...data, quota: 1.5 }, ledgerTime)).toThrow(/quota/);
  });
});
