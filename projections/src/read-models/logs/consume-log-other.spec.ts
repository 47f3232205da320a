import { sortedJson } from '#server/common/json/sorted-json';
import type { QuotaConsumedData } from '#server/modules/accounts/index';
import { quotaConsumedEndReason, quotaConsumedUsageSource } from '#server/modules/accounts/quota-consumed-event-codec';
import { consumeLogOther } from './consume-log-row';
import { random } from '../../../test/mixed-ledger';

/**
 * consumeLogOther writes a charge without relay extras out by hand; its yardstick is the object it stands for through
 * sortedJson, built here as consumeLogOther built it for every charge before (the same fallbacks, the same keys).
 */
function throughSortedJson(data: Partial<QuotaConsumedData>): string {
  const finite = (value: unknown, fallback: number) => (typeof value === 'number' && Number.isFinite(value) ? value : fallback);
  const count = (value: unknown) =>
    typeof value !== 'number' || !Number.isFinite(value) || value < 0 ? 0 : Math.min(Math.floor(value), 2_147_483_647);
  const extra = data.other && typeof data.other === 'object' && !Array.isArray(data.other) ? data.other : {};
  const extraAdmin = extra.admin_info && typeof extra.admin_info === 'object' && !Array.isArray(extra.admin_info) ? extra.admin_info : {};
  const path = Array.isArray(data.channelPath) ? data.channelPath : typeof data.channelId === 'number' ? [data.channelId] : [];
  const other: Record<string, unknown> = {
    ...extra,
    model_ratio: finite(data.modelRatio, 0),
    group_ratio: finite(data.groupRatio, 1),
    completion_ratio: finite(data.completionRatio, 1),
    model_price: finite(data.modelPrice, -1),
    frt: data.isStream === true ? finite(data.firstTokenMs, 0) : -1000,
    cache_tokens: count(data.cachedTokens),
    admin_info: { ...(extraAdmin as Record<string, unknown>), use_channel: path.map((id) => String(id)) },
  };
  const upstream = typeof data.upstreamModel === 'string' ? data.upstreamModel.replace(/\u0000/g, '') : '';
  if (upstream && upstream !== data.modelName) {
    other.is_model_mapped = true;
    other.upstream_model_name = upstream;
  }
  const usageSource = quotaConsumedUsageSource(data as Record<string, unknown>);
  if (usageSource !== undefined) other.usage_source = usageSource;
  const endReason = quotaConsumedEndReason(data as Record<string, unknown>);
  if (endReason !== undefined) other.end_reason = endReason;
  return sortedJson(other);
}

const NUMBERS: unknown[] = [undefined, 0, -0, 1, -1, 0.075, 0.1 + 0.2, 1e21, 5e-7, 2 ** 40, NaN, Infinity, -Infinity, '4', null];
const TEXTS: unknown[] = [undefined, '', 'gpt-4o-mini', 'claude-3', 'a"b\\c', 'mo\u0000del', '模型', '\u2028x', 7];
const PATHS: unknown[] = [undefined, [], [3], [12, 15], [1, '2"x', 3.5], 'not a path'];
const OTHERS: unknown[] = [undefined, {}, [], { admin_info: {} }, { admin_info: { note: 1 } }, { b: 1, a: { d: 2, c: 3 } }, 'text'];
const SOURCES: unknown[] = [undefined, 'upstream', 'estimated', 'guessed'];
const ENDS: unknown[] = [undefined, 'completed', 'client_gone', 'upstream_error', 'timeout', 'cut_stream', 'other'];

describe('consumeLogOther', () => {
  it('writes the text sortedJson gives of its object, for charges with and without relay extras', () => {
    for (let seed = 1; seed <= 3000; seed++) {
      const next = random(seed);
      const pick = (list: unknown[]) => list[Math.floor(next() * list.length)];
      const modelName = pick(TEXTS);
      const data = {
        modelName,
        upstreamModel: next() < 0.3 ? modelName : pick(TEXTS),
        channelId: pick(NUMBERS),
        channelPath: pick(PATHS),
        modelRatio: pick(NUMBERS),
        groupRatio: pick(NUMBERS),
        completionRatio: pick(NUMBERS),
        modelPrice: pick(NUMBERS),
        isStream: pick([true, false, undefined, 'yes']),
        firstTokenMs: pick(NUMBERS),
        cachedTokens: pick(NUMBERS),
        usageSource: pick(SOURCES),
        endReason: pick(ENDS),
        other: pick(OTHERS),
      } as unknown as Partial<QuotaConsumedData>;
      const expected = throughSortedJson(data);
      if (consumeLogOther(data) !== expected) throw new Error(`seed ${seed}: ${consumeLogOther(data)} !== ${expected}`);
    }
  });

  it('writes a typical charge as its keys in sorted order', () => {
    expect(
      consumeLogOther({
        modelName: 'gpt-4o',
        upstreamModel: 'gpt-4o-2024',
        channelPath: [1, 4],
        modelRatio: 1.25,
        completionRatio: 4,
        isStream: true,
        firstTokenMs: 295,
        usageSource: 'upstream',
        endReason: 'completed',
      }),
    ).toBe(
      '{"admin_info":{"use_channel":["1","4"]},"cache_tokens":0,"completion_ratio":4,"end_reason":"completed","frt":295,' +
        '"group_ratio":1,"is_model_mapped":true,"model_price":-1,"model_ratio":1.25,"upstream_model_name":"gpt-4o-2024",' +
        '"usage_source":"upstream"}',
    );
  });
});
