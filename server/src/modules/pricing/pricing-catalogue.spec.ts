import { buildPricing } from './pricing-catalogue';
import type { PricingTables } from './relay-pricing';

const tables = (overrides: Partial<PricingTables> = {}): PricingTables => ({
  modelRatio: { 'gpt-4o': 2.5, 'glm-4-flash': 0, 'my-model': 1.5 },
  completionRatio: { 'my-model': 1.25, 'gpt-4o': 9 },
  modelPrice: { 'dall-e-3': 0.04, 'gpt-4-gizmo-*': 0.1, mj_inpaint: 0 },
  groupRatio: { default: 1, vip: 0.5 },
  preConsumedTokens: 500,
  quotaPerUnit: 500_000,
  ...overrides,
});

describe('buildPricing', () => {
  it('prices a ratio model by its ratio and completion ratio (the hard-coded rule before the option)', () => {
    const [entry] = buildPricing(new Map([['gpt-4o', ['default', 'vip']]]), tables());
    expect(entry).toEqual({
      model_name: 'gpt-4o',
      quota_type: 0,
      model_ratio: 2.5,
      model_price: 0,
      owner_by: '',
      completion_ratio: 4,
      enable_groups: ['default', 'vip'],
    });
  });

  it('falls back to the CompletionRatio option, then 1, and gives an unknown model ratio 30', () => {
    const entries = buildPricing(
      new Map([
        ['my-model', ['default']],
        ['unknown-x', ['vip']],
        ['glm-4-flash', ['default']],
      ]),
      tables(),
    );
    expect(
      entries.map(({ model_name, model_ratio, completion_ratio, quota_type }) => ({
        model_name,
        model_ratio,
        completion_ratio,
        quota_type,
      })),
    ).toEqual([
      { model_name: 'my-model', model_ratio: 1.5, completion_ratio: 1.25, quota_type: 0 },
      { model_name: 'unknown-x', model_ratio: 30, completion_ratio: 1, quota_type: 0 },
      { model_name: 'glm-4-flash', model_ratio: 0, completion_ratio: 1, quota_type: 0 },
    ]);
  });

  it('prices a model with a ModelPrice per call, zero included, with its ratios 0; gizmo names share the wildcard price', () => {
    const entries = buildPricing(
      new Map([
        ['dall-e-3', ['default']],
        ['gpt-4-gizmo-abc', ['default']],
        ['mj_inpaint', ['vip']],
      ]),
      tables(),
    );
    expect(entries).toEqual([
      {
        model_name: 'dall-e-3',
        quota_type: 1,
        model_ratio: 0,
        model_price: 0.04,
        owner_by: '',
        completion_ratio: 0,
        enable_groups: ['default'],
      },
      {
        model_name: 'gpt-4-gizmo-abc',
        quota_type: 1,
        model_ratio: 0,
        model_price: 0.1,
        owner_by: '',
        completion_ratio: 0,
        enable_groups: ['default'],
      },
      {
        model_name: 'mj_inpaint',
        quota_type: 1,
        model_ratio: 0,
        model_price: 0,
        owner_by: '',
        completion_ratio: 0,
        enable_groups: ['vip'],
      },
    ]);
  });

  it('answers an empty list when no channel is enabled', () => {
    expect(buildPricing(new Map(), tables())).toEqual([]);
  });
});
