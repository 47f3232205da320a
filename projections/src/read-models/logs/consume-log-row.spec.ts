import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { consumeLogContent, consumeLogOther, consumeLogRow } from './consume-log-row';

function consumed(overrides: Partial<QuotaConsumedData> = {}): QuotaConsumedData {
  return {
    requestId: 'req-1',
    userId: 7,
    tokenId: 12,
    tokenName: 'my-token',
    group: 'vip',
    modelName: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelId: 15,
    channelName: 'openai-2',
    channelPath: [12, 15],
    relayMode: 'chat',
    promptTokens: 1000,
    completionTokens: 500,
    cachedTokens: 0,
    modelRatio: 0.075,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: 225,
    tokenUnlimited: false,
    isStream: true,
    useTimeSeconds: 3,
    firstTokenMs: 420,
    createdAt: 1_732_400_000,
    username: 'alice',
    ...overrides,
  };
}

const ledgerTime = new Date('2024-11-24T00:00:10Z');

describe('consumeLogRow', () => {
  it("fills every column of new-api's row from the event (type 2, created_at = admission time)", () => {
    expect(consumeLogRow(7, consumed(), ledgerTime)).toEqual({
      userId: 7,
      createdAt: 1_732_400_000,
      type: 2,
      content: '模型倍率 0.07，补全倍率 4.00，分组倍率 1.00',
      username: 'alice',
      tokenName: 'my-token',
      modelName: 'gpt-4o-mini',
      quota: 225,
      promptTokens: 1000,
      completionTokens: 500,
      useTime: 3,
      isStream: true,
      channelId: 15,
      tokenId: 12,
      group: 'vip',
      other:
        '{"admin_info":{"use_channel":["12","15"]},"cache_tokens":0,"completion_ratio":4,"frt":420,"group_ratio":1,"model_price":-1,"model_ratio":0.075}',
    });
  });

  it('writes frt -1000 for a non-stream request, like new-api, and keeps the cached tokens', () => {
    const other = JSON.parse(consumeLogOther(consumed({ isStream: false, firstTokenMs: 0, cachedTokens: 300 })));
    expect(other.frt).toBe(-1000);
    expect(other.cache_tokens).toBe(300);
  });

  it('keeps the relay extra keys, but the computed ones win, and notes a mapped model', () => {
    const other = JSON.parse(
      consumeLogOther(
        consumed({
          upstreamModel: 'gpt-4o-mini-2024-07-18',
          other: { model_ratio: 99, reasoning_effort: 'low', admin_info: { note: 'x' } },
        }),
      ),
    );
    expect(other).toMatchObject({
      model_ratio: 0.075,
      reasoning_effort: 'low',
      is_model_mapped: true,
      upstream_model_name: 'gpt-4o-mini-2024-07-18',
      admin_info: { note: 'x', use_channel: ['12', '15'] },
    });
  });

  it('words a fixed-price model with its price and ratio 0', () => {
    const other = JSON.parse(
      consumeLogOther(consumed({ modelName: 'dall-e-3', upstreamModel: 'dall-e-3', modelPrice: 0.04, modelRatio: 0 })),
    );
    expect(other).toMatchObject({ model_price: 0.04, model_ratio: 0 });
  });

  it('falls back to the ledger time and the answering channel when the event lacks them', () => {
    const row = consumeLogRow(7, consumed({ createdAt: 0, channelPath: undefined as unknown as number[] }), ledgerTime);
    expect(row.createdAt).toBe(Math.floor(ledgerTime.getTime() / 1000));
    expect(JSON.parse(row.other).admin_info.use_channel).toEqual(['15']);
  });

  it('never hands Postgres a value it refuses: NUL removed, over-long names cut, counts bounded', () => {
    const row = consumeLogRow(
      7,
      consumed({
        modelName: `m\u0000${'x'.repeat(400)}`,
        username: 'a'.repeat(100),
        promptTokens: 1e12,
        completionTokens: -5,
        useTimeSeconds: 2.9,
      }),
      ledgerTime,
    );
    expect(row.modelName).toHaveLength(256);
    expect(row.modelName.includes('\u0000')).toBe(false);
    expect(row.username).toHaveLength(64);
    expect(row.promptTokens).toBe(2_147_483_647);
    expect(row.completionTokens).toBe(0);
    expect(row.useTime).toBe(2);
  });

  it('refuses an event whose charge is not a safe integer (the projection must not invent one)', () => {
    expect(() => consumeLogRow(7, consumed({ quota: 1.5 }), ledgerTime)).toThrow(/quota/);
    expect(() => consumeLogRow(7, { ...consumed(), quota: undefined as unknown as number }, ledgerTime)).toThrow(/quota/);
  });

  it('derives the wording from the prices and counts, as the relay wrote it into older events', () => {
    expect(consumeLogContent(consumed())).toBe('模型倍率 0.07，补全倍率 4.00，分组倍率 1.00');
    expect(consumeLogContent(consumed({ modelPrice: 0.04, modelRatio: 0, groupRatio: 1.5 }))).toBe('模型价格 0.04，分组倍率 1.50');
    expect(consumeLogContent(consumed({ promptTokens: 0, completionTokens: 0 }))).toBe(
      '模型倍率 0.07，补全倍率 4.00，分组倍率 1.00（可能是上游超时）',
    );
  });

  it("keeps an event's own wording: an image's size and quality, and every event written before it was derived", () => {
    const image = '模型价格 0.04，分组倍率 1.00 , 大小 1024x1024, 品质 standard';
    expect(consumeLogRow(7, consumed({ content: image, modelPrice: 0.04, modelRatio: 0 }), ledgerTime).content).toBe(image);
    // An older event: wording, other and quotaDisplay stored in it; the row is the one it always gave.
    const older = {
      ...consumed(),
      content: '模型倍率 0.07，补全倍率 4.00，分组倍率 1.00',
      other: {},
      quotaDisplay: { inCurrency: true, quotaPerUnit: 500000 },
    };
    expect(consumeLogRow(7, older, ledgerTime)).toEqual(consumeLogRow(7, consumed(), ledgerTime));
  });

  it('is deterministic: the same event gives the same row', () => {
    const event = consumed({ other: { b: 1, a: { d: 2, c: 3 } } });
    expect(consumeLogRow(7, event, ledgerTime)).toEqual(consumeLogRow(7, structuredClone(event), ledgerTime));
    expect(consumeLogOther(event)).toBe(consumeLogOther({ ...event, other: { a: { c: 3, d: 2 }, b: 1 } }));
  });

  it("puts the charge's usage source and end reason in other when the event records them, and invents neither", () => {
    const honest = JSON.parse(consumeLogOther(consumed({ usageSource: 'upstream', endReason: 'client_gone' })));
    expect(honest).toMatchObject({ usage_source: 'upstream', end_reason: 'client_gone' });
    expect(JSON.parse(consumeLogOther(consumed({ usageSource: 'estimated', endReason: 'timeout' })))).toMatchObject({
      usage_source: 'estimated',
      end_reason: 'timeout',
    });
    // An event written before the fields existed (or holding a value this code does not know): no such keys.
    for (const older of [consumed(), consumed({ usageSource: 'local' as never, endReason: 'stopped' as never })]) {
      const other = JSON.parse(consumeLogOther(older));
      expect(other).not.toHaveProperty('usage_source');
      expect(other).not.toHaveProperty('end_reason');
    }
  });
});
