import { randomUUID } from 'node:crypto';
import { deterministicEventId, uuidV7 } from '../../ledger/event-ids';
import { evolveStored } from './account-event-codec';
import { initialAccountState } from './account.state';
import {
  MalformedQuotaConsumedError,
  quotaConsumedData,
  quotaConsumedEndReason,
  quotaConsumedEvent,
  quotaConsumedEventId,
  quotaConsumedMetadata,
  quotaConsumedQuota,
  type QuotaConsumedShape,
  quotaConsumedUsageSource,
} from './quota-consumed-event-codec';
import { CHARGE_END_REASONS, type QuotaConsumedData, USAGE_SOURCES } from './quota-consumed.event';

const REQUEST_ID = '3f2a9c1e-5b7d-4e21-9a0c-8d6f4b2e1a07';
/** Where each shape keeps the admission time (v3 leaves it out, as 0, when it and everything after it are defaults). */
const CREATED_AT = { v2: 24, v3: 16 } as const;

function charge(overrides: Partial<QuotaConsumedData> = {}): QuotaConsumedData {
  return {
    requestId: REQUEST_ID,
    userId: 42,
    username: 'alice',
    tokenId: 7,
    tokenName: 'ci key',
    group: 'default',
    modelName: 'gpt-3.5-turbo',
    upstreamModel: 'gpt-3.5-turbo',
    channelId: 3,
    channelName: 'openai-main',
    channelPath: [3],
    relayMode: 'chat',
    promptTokens: 12,
    completionTokens: 7,
    cachedTokens: 0,
    modelRatio: 0.75,
    completionRatio: 4 / 3,
    groupRatio: 1,
    modelPrice: -1,
    quota: 24,
    tokenUnlimited: false,
    isStream: false,
    useTimeSeconds: 0,
    firstTokenMs: 0,
    createdAt: 1_764_100_000,
    usageSource: 'upstream',
    endReason: 'completed',
    ...overrides,
  };
}

/** The event as a reader gets it back from the store: the JSON round trip, a stream, no cached decoding. */
function stored(
  data: QuotaConsumedData,
  envelope = { userRole: 1, clientIp: '10.0.0.9' as string | null },
  shape: QuotaConsumedShape = 'v3',
) {
  const { streamId, event } = quotaConsumedEvent(data, envelope, shape);
  const json = JSON.parse(JSON.stringify(event)) as typeof event;
  return { ...json, streamId };
}

describe.each(['v2', 'v3'] as const)('QuotaConsumed codec, %s', (shape) => {
  it('round-trips a typical charge, stored as one compact string with an empty metadata', () => {
    const data = charge();
    const event = stored(data, undefined, shape);
    expect(event.streamId).toBe('account-42');
    expect(event.id).toBe(REQUEST_ID);
    expect(Object.keys(event.data)).toEqual([shape]);
    expect(event.metadata).toEqual({});
    expect(quotaConsumedData(event)).toEqual(data);
    expect(JSON.stringify(event.data).length).toBeLessThan(200);
  });

  it('round-trips every optional field and every non-default value', () => {
    const variants: Partial<QuotaConsumedData>[] = [
      { upstreamModel: 'gpt-3.5-turbo-0125' },
      { upstreamModel: '' },
      { channelPath: [5, 9, 3] },
      { channelPath: [] },
      { channelPath: [4] },
      { content: '模型倍率 0.75，补全倍率 1.33，分组倍率 1.00 , 大小 1024x1792, 品质 hd' },
      { content: '' },
      { logConsume: false },
      { dataExport: false },
      { billingCapped: true },
      { tokenUnlimited: true },
      { isStream: true, firstTokenMs: 312 },
      { usageSource: undefined, endReason: undefined },
      { cachedTokens: 5, modelPrice: 0.02, modelRatio: 0, completionRatio: 0, groupRatio: 0.5 },
      { username: 'a|b"c\\d,é', tokenName: '', group: 'vip', relayMode: 'images-generations' },
      { relayMode: 'suno', content: 'x' },
      { relayMode: 'midjourney' },
      { relayMode: '' },
      { relayMode: 'rerank', modelPrice: -1.5, useTimeSeconds: 3, createdAt: 1 },
      { relayMode: 'audio-translations', channelPath: [3, 3] },
      { tokenId: 0, channelName: '' },
      { requestId: 'not-a-uuid' },
      { requestId: REQUEST_ID.toUpperCase() },
    ];
    for (const source of USAGE_SOURCES) variants.push({ usageSource: source });
    for (const reason of CHARGE_END_REASONS) variants.push({ endReason: reason });
    variants.push({ logConsume: false, dataExport: false, billingCapped: true, tokenUnlimited: true, isStream: true });
    for (const overrides of variants) {
      const data = charge(overrides);
      for (const key of Object.keys(data) as (keyof QuotaConsumedData)[]) if (data[key] === undefined) delete data[key];
      expect(quotaConsumedData(stored(data, undefined, shape))).toEqual(data);
    }
  });

  it("stores a UUID v7 request's admission time as seconds after the id's own time, and reads it back exactly", () => {
    const arrived = Date.UTC(2026, 10, 25, 21, 0, 59, 999);
    const requestId = uuidV7(arrived);
    for (const createdAt of [Math.floor(arrived / 1000), Math.floor(arrived / 1000) + 1, 1_600_000_000, 0]) {
      const data = charge({ requestId, createdAt });
      const event = stored(data, undefined, shape);
      expect(event.id).toBe(requestId);
      expect(JSON.parse(event.data[shape] as string)[CREATED_AT[shape]] ?? 0).toBe(createdAt - Math.floor(arrived / 1000));
      expect(quotaConsumedData(event)).toEqual(data);
    }
    // A v4 request id carries no time: the admission time is stored whole.
    expect(JSON.parse(stored(charge(), undefined, shape).data[shape] as string)[CREATED_AT[shape]]).toBe(1_764_100_000);
  });

  it('derives the envelope v1 stored: correlation id, the user as actor with the role, the ip, the reason code', () => {
    const event = stored(charge(), { userRole: 100, clientIp: '203.0.113.5' }, shape);
    expect(quotaConsumedMetadata(event)).toEqual({
      correlationId: REQUEST_ID,
      causationId: null,
      actor: { type: 'user', userId: 42, role: 100 },
      clientIp: '203.0.113.5',
      reasonCode: 'relay_request',
      schemaVersion: shape === 'v2' ? 2 : 3,
    });
    expect(quotaConsumedMetadata(stored(charge(), { userRole: 1, clientIp: null }, shape)).clientIp).toBeNull();
    expect(quotaConsumedMetadata(stored(charge(), { userRole: 1, clientIp: '' }, shape)).clientIp).toBe('');
  });

  it('keeps the request id in the payload when it is not a canonical UUID, with the UUID v5 id charges always had', () => {
    const event = stored(charge({ requestId: 'r-1' }), undefined, shape);
    expect(event.id).toBe(deterministicEventId('relay-request', 'r-1'));
    expect(quotaConsumedEventId('r-1')).toBe(event.id);
    expect(quotaConsumedData(event).requestId).toBe('r-1');
    expect(quotaConsumedEventId(REQUEST_ID)).toBe(REQUEST_ID);
  });

  it(`decodes a stored v1 event (the whole object, full metadata) and its ${shape} re-encoding to the same QuotaConsumedData`, () => {
    // As the relay wrote it before issue 20 (a row of a ledger of that time, JSON as Postgres returns it).
    const v1 = {
      id: deterministicEventId('relay-request', REQUEST_ID),
      streamId: 'account-42',
      data: {
        requestId: REQUEST_ID,
        userId: 42,
        username: 'alice',
        tokenId: 7,
        tokenName: 'ci key',
        group: 'default',
        modelName: 'gpt-3.5-turbo',
        upstreamModel: 'gpt-3.5-turbo',
        channelId: 3,
        channelName: 'openai-main',
        channelPath: [3],
        relayMode: 'chat',
        promptTokens: 12,
        completionTokens: 7,
        cachedTokens: 0,
        modelRatio: 0.75,
        completionRatio: 4 / 3,
        groupRatio: 1,
        modelPrice: -1,
        quota: 24,
        tokenUnlimited: false,
        isStream: false,
        useTimeSeconds: 0,
        firstTokenMs: 0,
        createdAt: 1_764_100_000,
        usageSource: 'upstream',
        endReason: 'completed',
      },
      metadata: {
        correlationId: REQUEST_ID,
        causationId: null,
        actor: { type: 'user', userId: 42, role: 1 },
        clientIp: '10.0.0.9',
        reasonCode: 'relay_request',
        schemaVersion: 1,
      },
    };
    const compact = stored(charge(), undefined, shape);
    expect(quotaConsumedData(v1)).toEqual(quotaConsumedData(compact));
    expect(quotaConsumedData(v1)).toEqual(charge());
    const { schemaVersion: _v1, ...v1Envelope } = quotaConsumedMetadata(v1);
    const { schemaVersion: _compact, ...compactEnvelope } = quotaConsumedMetadata(compact);
    expect(compactEnvelope).toEqual(v1Envelope);
    expect(quotaConsumedQuota(v1.data)).toBe(24);
    expect(quotaConsumedQuota(compact.data)).toBe(24);
    for (const event of [v1, compact]) {
      expect(evolveStored({ ...initialAccountState, quota: 100 }, { type: 'QuotaConsumed', data: event.data })).toMatchObject({
        quota: 76,
        usedQuota: 24,
        requestCount: 1,
      });
    }
  });

  it('is far smaller than v1: no keys, nothing the stream or the id already says, no metadata', () => {
    const data = charge({ requestId: randomUUID() });
    const { event } = quotaConsumedEvent(data, { userRole: 1, clientIp: '127.0.0.1' }, shape);
    const v1Size = JSON.stringify({
      data,
      metadata: {
        correlationId: data.requestId,
        causationId: null,
        actor: { type: 'user', userId: 42, role: 1 },
        clientIp: '127.0.0.1',
        reasonCode: 'relay_request',
        schemaVersion: 1,
      },
    }).length;
    const compactSize = JSON.stringify({ data: event.data, metadata: event.metadata }).length;
    expect(compactSize).toBeLessThan(v1Size / 3);
  });

  it('reads a number JSON could not write (NaN) as NaN, so the folds check it as they did v1 null: a ratio falls back, a quota is refused', () => {
    const event = stored(charge({ modelRatio: NaN, quota: NaN }), undefined, shape);
    const data = quotaConsumedData(event);
    expect(data.modelRatio).toBeNaN();
    expect(data.quota).toBeNaN();
    expect(() => evolveStored(initialAccountState, { type: 'QuotaConsumed', data: event.data })).toThrow('quota is not a safe integer');
  });
});

describe('QuotaConsumed codec, v2 payloads it cannot read', () => {
  it('refuses a payload it cannot read, naming the event, rather than guessing', () => {
    const good = stored(charge(), undefined, 'v2');
    const row = JSON.parse(good.data.v2 as string) as unknown[];
    const bad: [unknown, string][] = [
      ['x', 'data is not an object'],
      [{ v2: 5 }, 'v2 is not a string'],
      [{ v2: '[1,2' }, 'v2 is not JSON'],
      [{ v2: JSON.stringify(row.slice(0, 10)) }, 'v2 is not an array of its fields'],
      [{ v2: JSON.stringify(row.map((value, i) => (i === 20 ? '24' : value))) }, 'field 20 is not a number'],
      [{ v2: JSON.stringify(row.map((value, i) => (i === 11 ? 'x' : value))) }, 'channel path'],
    ];
    for (const [data, why] of bad) {
      const event = { ...good, data };
      expect(() => quotaConsumedData(event)).toThrow(MalformedQuotaConsumedError);
      expect(() => quotaConsumedData(event)).toThrow(why);
    }
    expect(() => quotaConsumedData({ ...good, streamId: 'token-7' })).toThrow('not an account stream');
  });
});

describe('QuotaConsumed codec: usage source and end reason', () => {
  it('reads every recorded value back as written', () => {
    for (const source of USAGE_SOURCES) expect(quotaConsumedUsageSource({ usageSource: source })).toBe(source);
    for (const reason of CHARGE_END_REASONS) expect(quotaConsumedEndReason({ endReason: reason })).toBe(reason);
    expect(CHARGE_END_REASONS).toEqual(['completed', 'client_gone', 'upstream_error', 'timeout', 'cut_stream']);
  });

  it('reads an event written before the fields existed as unknown, whatever its counts suggest', () => {
    const old = { requestId: 'r1', quota: 19, promptTokens: 12, completionTokens: 7, content: '模型倍率 0.25' };
    expect(quotaConsumedUsageSource(old)).toBeUndefined();
    expect(quotaConsumedEndReason(old)).toBeUndefined();
  });

  it('reads a value it does not know (another spelling, another type) as unknown rather than failing', () => {
    for (const odd of ['Upstream', 'local', '', 1, null, true, ['upstream'], { source: 'upstream' }]) {
      expect(quotaConsumedUsageSource({ usageSource: odd })).toBeUndefined();
      expect(quotaConsumedEndReason({ endReason: odd })).toBeUndefined();
    }
  });
});
