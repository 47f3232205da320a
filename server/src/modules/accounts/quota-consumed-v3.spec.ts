import { uuidV7 } from '../../ledger/event-ids';
import { MalformedQuotaConsumedError, quotaConsumedData, quotaConsumedEvent, quotaConsumedQuota } from './quota-consumed-event-codec';
import type { QuotaConsumedData } from './quota-consumed.event';

/** A relay charge as the benchmark's requests make them (the shape of the rows of `npm run bench`). */
const ARRIVED = Date.UTC(2026, 10, 26, 0, 13, 22, 400);
const REQUEST_ID = uuidV7(ARRIVED);

function charge(overrides: Partial<QuotaConsumedData> = {}): QuotaConsumedData {
  return {
    requestId: REQUEST_ID,
    userId: 1,
    username: 'root',
    tokenId: 1,
    tokenName: 'bench-51853989',
    group: 'default',
    modelName: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    channelId: 1,
    channelName: 'bench-fake-upstream',
    channelPath: [1],
    relayMode: 'chat',
    promptTokens: 12,
    completionTokens: 20,
    cachedTokens: 0,
    modelRatio: 0.075,
    completionRatio: 4,
    groupRatio: 1,
    modelPrice: -1,
    quota: 7,
    tokenUnlimited: false,
    isStream: false,
    useTimeSeconds: 0,
    firstTokenMs: 0,
    createdAt: Math.floor(ARRIVED / 1000),
    usageSource: 'upstream',
    endReason: 'completed',
    ...overrides,
  };
}

const ENVELOPE = { userRole: 100, clientIp: '127.0.0.1' };

function v3Text(data: QuotaConsumedData, envelope = ENVELOPE): string {
  return quotaConsumedEvent(data, envelope).event.data.v3 as string;
}

/** A stored event as a reader gets it back: a fresh object (no cached decoding) on the account stream. */
function storedEvent(data: Record<string, unknown>, id = REQUEST_ID) {
  return { id, streamId: 'account-1', data, metadata: {} };
}

describe('QuotaConsumed v3', () => {
  it('writes what every charge has, and leaves out the trailing fields that hold their default', () => {
    expect(v3Text(charge())).toBe(
      '[100,"127.0.0.1","root",1,"bench-51853989","default","gpt-4o-mini",1,"bench-fake-upstream",12,20,0.075,4,1,7]',
    );
    // A streamed charge admitted in the next second keeps the flags and the admission time, nothing after them.
    expect(v3Text(charge({ isStream: true, createdAt: Math.floor(ARRIVED / 1000) + 1 }))).toBe(
      '[100,"127.0.0.1","root",1,"bench-51853989","default","gpt-4o-mini",1,"bench-fake-upstream",12,20,0.075,4,1,7,2,1]',
    );
    // A field with a value other than its default keeps every position before it.
    expect(JSON.parse(v3Text(charge({ modelPrice: 0.02 })))).toEqual([
      100,
      '127.0.0.1',
      'root',
      1,
      'bench-51853989',
      'default',
      'gpt-4o-mini',
      1,
      'bench-fake-upstream',
      12,
      20,
      0.075,
      4,
      1,
      7,
      0,
      0,
      0,
      0,
      0,
      0.02,
    ]);
  });

  it('is smaller than v2 for the same charge', () => {
    for (const data of [charge(), charge({ isStream: true, firstTokenMs: 240, useTimeSeconds: 2 })]) {
      const v2 = quotaConsumedEvent(data, ENVELOPE, 'v2').event.data.v2 as string;
      expect(v3Text(data).length).toBeLessThan(v2.length - 20);
    }
  });

  it('stores a relay mode of the frozen list as its index and any other mode as its name', () => {
    const modes: [string, unknown][] = [
      ['completions', 1],
      ['embeddings', 2],
      ['rerank', 8],
      ['suno', 'suno'],
      ['midjourney', 'midjourney'],
      ['', ''],
    ];
    for (const [relayMode, stored] of modes) {
      const text = v3Text(charge({ relayMode }));
      expect(JSON.parse(text)[23]).toEqual(stored);
      expect(quotaConsumedData(storedEvent({ v3: text })).relayMode).toBe(relayMode);
    }
  });

  it('reads the usage source and end reason as 0-based codes, -1 and codes it does not know as not recorded', () => {
    const base = JSON.parse(v3Text(charge({ modelPrice: 0 }))) as unknown[];
    const read = (usage: unknown, end: unknown) => quotaConsumedData(storedEvent({ v3: JSON.stringify([...base, usage, end]) }));
    expect(read(1, 4)).toMatchObject({ usageSource: 'estimated', endReason: 'cut_stream' });
    const unknown = read(-1, 99);
    expect(unknown.usageSource).toBeUndefined();
    expect(unknown.endReason).toBeUndefined();
    expect('usageSource' in unknown || 'endReason' in unknown).toBe(false);
  });

  it('reads an array a later writer extended with fields it does not know', () => {
    const full = JSON.parse(v3Text(charge({ requestId: 'not-a-uuid', content: 'own words' }))) as unknown[];
    expect(full).toHaveLength(28);
    const data = quotaConsumedData(
      storedEvent({ v3: JSON.stringify([...full, 'later', 5]) }, quotaConsumedEvent(charge(), ENVELOPE).event.id),
    );
    expect(data).toEqual(charge({ requestId: 'not-a-uuid', content: 'own words', createdAt: data.createdAt }));
  });

  it('reads the amount for the account decider from the data alone', () => {
    expect(quotaConsumedQuota({ v3: v3Text(charge({ quota: 12345 })) })).toBe(12345);
    expect(quotaConsumedQuota({ v3: '[1,2' })).toBeUndefined();
    expect(quotaConsumedQuota({ v3: 5 })).toBeUndefined();
  });

  it('refuses a payload it cannot read, naming the event, rather than guessing', () => {
    const row = JSON.parse(v3Text(charge({ requestId: 'r-1', channelPath: [2, 1] }))) as unknown[];
    const id = quotaConsumedEvent(charge({ requestId: 'r-1' }), ENVELOPE).event.id;
    const bad: [unknown, string][] = [
      [{ v3: 5 }, 'v3 is not a string'],
      [{ v3: '[1,2' }, 'v3 is not JSON'],
      [{ v3: '{"a":1}' }, 'v3 is not an array of its fields'],
      [{ v3: JSON.stringify(row.slice(0, 14)) }, 'v3 is not an array of its fields'],
      [{ v3: JSON.stringify(row.map((value, i) => (i === 14 ? '7' : value))) }, 'field 14 is not a number'],
      [{ v3: JSON.stringify(row.map((value, i) => (i === 2 ? 5 : value))) }, 'field 2 is not a string'],
      [{ v3: JSON.stringify(row.map((value, i) => (i === 25 ? 'x' : value))) }, 'channel path'],
      [{ v3: JSON.stringify(row.map((value, i) => (i === 23 ? 9 : value))) }, 'relay mode 9 is not a known index'],
      [{ v3: JSON.stringify(row.map((value, i) => (i === 23 ? -1 : value))) }, 'relay mode -1 is not a known index'],
    ];
    for (const [data, why] of bad) {
      const event = storedEvent(data as Record<string, unknown>, id);
      expect(() => quotaConsumedData(event)).toThrow(MalformedQuotaConsumedError);
      expect(() => quotaConsumedData(event)).toThrow(why);
    }
    expect(() => quotaConsumedData({ ...storedEvent({ v3: JSON.stringify(row) }, id), streamId: 'token-7' })).toThrow(
      'not an account stream',
    );
  });
});

describe('QuotaConsumed stored shapes, read forever', () => {
  // Texts exactly as they sit in ledgers: v2 as the relay wrote it before v3 (a row of a benchmark ledger), and v3.
  const V2_STORED =
    '[0,100,"127.0.0.1","root",1,"bench-51853989","default","gpt-4o-mini",0,1,"bench-fake-upstream",0,"chat",12,20,0,0.075,4,1,-1,7,2,0,0,1,1,1]';
  const V3_STORED = '[100,"127.0.0.1","root",1,"bench-51853989","default","gpt-4o-mini",1,"bench-fake-upstream",12,20,0.075,4,1,7,2,1]';

  it('decodes a stored v2 and a stored v3 text of the same charge to the same facts', () => {
    const expected = charge({ isStream: true, createdAt: Math.floor(ARRIVED / 1000) + 1 });
    expect(quotaConsumedData(storedEvent({ v2: V2_STORED }))).toEqual(expected);
    expect(quotaConsumedData(storedEvent({ v3: V3_STORED }))).toEqual(expected);
    expect(quotaConsumedQuota({ v2: V2_STORED })).toBe(7);
    expect(quotaConsumedQuota({ v3: V3_STORED })).toBe(7);
  });
});
