import { DEFAULT_COMPLETION_RATIO, DEFAULT_MODEL_PRICE, DEFAULT_MODEL_RATIO } from '#server/modules/options/pricing-defaults';
import { pricingFor, type PricingTables } from '#server/modules/pricing/index';
import { consumeContent } from './consume-log-wording';

const tables: PricingTables = {
  modelRatio: DEFAULT_MODEL_RATIO,
  completionRatio: DEFAULT_COMPLETION_RATIO,
  modelPrice: DEFAULT_MODEL_PRICE,
  groupRatio: { default: 1, vip: 2 },
  preConsumedTokens: 500,
  quotaPerUnit: 500_000,
};

describe('consume log wording', () => {
  it('words the log line like new-api', () => {
    expect(consumeContent(pricingFor(tables, 'gpt-3.5-turbo', 'default'), { promptTokens: 1, completionTokens: 1 }, false)).toBe(
      '模型倍率 0.25，补全倍率 3.00，分组倍率 1.00',
    );
    expect(consumeContent(pricingFor(tables, 'mj_imagine', 'default'), { promptTokens: 0, completionTokens: 0 }, false)).toBe(
      '模型价格 0.10，分组倍率 1.00（可能是上游超时）',
    );
  });
});
