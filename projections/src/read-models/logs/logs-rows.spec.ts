import type { RecordedEvent } from '#server/ledger/event-store.port';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { benchChargeFixture } from '#test/support/quota-consumed-fixture';
import { chargeTextsDerive, consumeFactsOf, storedConsumeText } from './consume-log-columns';
import { consumeLogContent, consumeLogRow } from './consume-log-row';
import { chargeRow } from './logs-rows';

const ledgerTime = new Date(Date.UTC(2026, 10, 26, 9, 0, 0));
const event = { createdAt: ledgerTime } as RecordedEvent;

/** The row as storedConsumeText decides it, building both texts and deriving them back: the yardstick. */
function measured(data: QuotaConsumedData) {
  const row = consumeLogRow(4, data, ledgerTime);
  const text = storedConsumeText(row, consumeFactsOf(data));
  return { ...row, content: text.content, other: text.other, facts: text.facts };
}

const base = benchChargeFixture('r-1', 4, 1_764_100_000_000);

/** One field changed at a time, to every value at an edge of chargeTextsDerive's checks. */
const variants: Array<Partial<Record<keyof QuotaConsumedData, unknown>>> = [
  {},
  { content: consumeLogContent(base) }, // its own wording, equal to the derived one
  { content: '图片 1024x1024 hd' },
  { content: '' },
  { other: {} },
  { other: null },
  { other: { quality: 'hd' } },
  { other: { admin_info: { note: 'x' } } },
  { other: [] },
  { other: 'text' },
  { upstreamModel: '' },
  { upstreamModel: undefined },
  { upstreamModel: 'gpt-4o-mini-2024-07-18' },
  { upstreamModel: 'gpt-4o-mini\u0000' },
  { upstreamModel: 7 },
  { channelId: 0, channelPath: [0] },
  { channelId: 2_147_483_647, channelPath: [2_147_483_647] },
  { channelId: 2_147_483_648, channelPath: [2_147_483_648] },
  { channelId: -1, channelPath: [-1] },
  { channelId: 1.5, channelPath: [1.5] },
  { channelId: '1', channelPath: ['1'] },
  { channelId: undefined, channelPath: undefined },
  { channelPath: undefined },
  { channelPath: [] },
  { channelPath: [2, 1] },
  { channelPath: [2] },
  { channelPath: ['1'] },
  { channelPath: 'x' },
  { usageSource: 'upstream' },
  { usageSource: 'estimated' },
  { usageSource: undefined },
  { usageSource: 'guessed' },
  { endReason: 'client_gone' },
  { endReason: 'cut_stream' },
  { endReason: undefined },
  { endReason: 'vanished' },
  { isStream: true, firstTokenMs: 350 },
  { isStream: true, firstTokenMs: Number.NaN },
  { cachedTokens: 64 },
  { cachedTokens: -3 },
  { cachedTokens: 2.5 },
  { completionRatio: -0, groupRatio: 0.5, modelPrice: 0.02 },
  { modelRatio: Number.NaN, groupRatio: Number.POSITIVE_INFINITY },
  { modelPrice: -0 },
  { promptTokens: 0, completionTokens: 0 },
  { username: 'ü'.repeat(70), tokenName: 'a\u0000b', modelName: '' },
];

describe('chargeRow: the texts skipped when they derive back', () => {
  it('gives the row storedConsumeText would give, for every edge of the check, taking both paths', () => {
    let skipped = 0;
    let built = 0;
    for (const variant of variants) {
      const data = { ...base, ...variant } as QuotaConsumedData;
      const row = chargeRow(event, data, 4);
      expect({ variant, row: { ...row } }).toEqual({ variant, row: measured(data) });
      if (chargeTextsDerive(data, consumeFactsOf(data))) skipped += 1;
      else built += 1;
    }
    // Neither path is left unchecked: the typical charge and its harmless variants skip, the others build.
    expect(skipped).toBeGreaterThanOrEqual(15);
    expect(built).toBeGreaterThanOrEqual(15);
    expect(chargeTextsDerive(base, consumeFactsOf(base))).toBe(true);
  });

  it('skips a typical charge, whose stored row has neither text', () => {
    expect(chargeRow(event, base, 4)).toMatchObject({ content: null, other: null, channelId: 1, quota: 7 });
  });
});
