import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from '../options/pricing-defaults';
import { priceImageRequest } from './image-pricing';
import {
  completionRatioOf,
  finalQuota,
  MISSING_MODEL_RATIO,
  pricingFor,
  type PricingTables,
  referencePreConsume,
  reservationQuota,
} from './relay-pricing';

const tables: PricingTables = {
  modelRatio: DEFAULT_MODEL_RATIO,
  completionRatio: DEFAULT_COMPLETION_RATIO,
  modelPrice: DEFAULT_MODEL_PRICE,
  groupRatio: { default: 1, vip: 2 },
  preConsumedTokens: 500,
  quotaPerUnit: 500_000,
};

describe("relay pricing (new-api's rules)", () => {
  it('applies the hard-coded completion rules before the option', () => {
    expect(completionRatioOf('gpt-3.5-turbo', {})).toBe(3);
    expect(completionRatioOf('gpt-3.5-turbo-1106', {})).toBe(2);
    expect(completionRatioOf('gpt-3.5-turbo-16k', {})).toBeCloseTo(4 / 3);
    expect(completionRatioOf('gpt-4o', {})).toBe(4);
    expect(completionRatioOf('gpt-4o-2024-05-13', {})).toBe(3);
    expect(completionRatioOf('gpt-4-turbo', {})).toBe(3);
    expect(completionRatioOf('gpt-4', {})).toBe(2);
    expect(completionRatioOf('claude-3-haiku-20240307', {})).toBe(5);
    expect(completionRatioOf('gemini-1.5-pro-latest', {})).toBe(4);
    expect(completionRatioOf('my-model', { 'my-model': 1.5 })).toBe(1.5);
    expect(completionRatioOf('gpt-4', { 'gpt-4': 9 })).toBe(2);
    expect(completionRatioOf('unknown', {})).toBe(1);
  });

  it('takes a missing model ratio as 30 and an unknown group as 1', () => {
    const pricing = pricingFor(tables, 'no-such-model', 'nobody');
    expect(pricing).toEqual({ modelPrice: -1, modelRatio: MISSING_MODEL_RATIO, completionRatio: 1, groupRatio: 1 });
    expect(pricingFor(tables, 'gpt-4-gizmo-g-abc', 'vip')).toMatchObject({ modelRatio: 15, groupRatio: 2 });
  });

  it('reserves the max_tokens bound, else the PreConsumedQuota estimate', () => {
    const pricing = pricingFor(tables, 'gpt-3.5-turbo', 'default'); // ratio 0.25, completion 3
    expect(reservationQuota(tables, pricing, { promptTokens: 100, maxTokens: 200 })).toBe(Math.ceil((100 + 600) * 0.25));
    expect(reservationQuota(tables, pricing, { promptTokens: 100, maxTokens: null })).toBe(125);
    // Input-priced modes (TTS, rerank) reserve their input exactly, however long, never the 500-token default.
    expect(reservationQuota(tables, pricing, { promptTokens: 4000, maxTokens: null, promptOnly: true })).toBe(1000);
    expect(reservationQuota(tables, pricing, { promptTokens: 3, maxTokens: null, promptOnly: true })).toBe(1);
    expect(referencePreConsume(tables, pricing, { promptTokens: 4000, maxTokens: null, promptOnly: true })).toBe(1000);
    expect(referencePreConsume(tables, pricing, { promptTokens: 100, maxTokens: 200 })).toBe(75);
    const priced = pricingFor(tables, 'mj_imagine', 'vip');
    expect(reservationQuota(tables, priced, { promptTokens: 0, maxTokens: null })).toBe(100_000);
  });

  it('charges round((prompt + round(completion × cr)) × ratio × group), at least 1, and 0 for no tokens', () => {
    const pricing = pricingFor(tables, 'gpt-4o-mini', 'vip'); // 0.075, completion 4, group 2
    expect(finalQuota(tables, pricing, { promptTokens: 12, completionTokens: 7 })).toBe(Math.round((12 + 28) * 0.075 * 2));
    expect(finalQuota(tables, pricingFor(tables, 'gpt-4o-mini', 'default'), { promptTokens: 1, completionTokens: 0 })).toBe(1);
    expect(finalQuota(tables, pricing, { promptTokens: 0, completionTokens: 0 })).toBe(0);
    expect(finalQuota(tables, pricingFor(tables, 'glm-4-flash', 'default'), { promptTokens: 10, completionTokens: 10 })).toBe(0);
    expect(finalQuota(tables, pricingFor(tables, 'mj_describe', 'default'), { promptTokens: 1, completionTokens: 0 })).toBe(25_000);
  });

  it('prices images by size, quality and n', () => {
    const hd = priceImageRequest(
      { ...tables, modelPrice: { 'dall-e-3': 0.04 } },
      { prompt: 'cat', size: '1024x1792', quality: 'hd' },
      'dall-e-3',
      'default',
    );
    expect(hd.quota).toBe(Math.trunc(0.04 * 2 * 1.5 * 500_000));
    const small = priceImageRequest(tables, { prompt: 'cat', size: '256x256', n: 2 }, 'dall-e-2', 'default');
    expect(small.imageRatio).toBeCloseTo(0.0025 * 30 * 0.4 * 2);
    expect(() => priceImageRequest(tables, { prompt: 'cat', size: '100x100' }, 'dall-e-2', 'default')).toThrow('size not supported');
    expect(() => priceImageRequest(tables, {}, 'dall-e-2', 'default')).toThrow('prompt is required');
  });
});
