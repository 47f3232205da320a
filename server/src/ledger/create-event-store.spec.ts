import { eventStoreKind } from './create-event-store';

describe('eventStoreKind', () => {
  it.each([
    [undefined, 'postgres'],
    ['', 'postgres'],
    ['esdb://localhost:2113?tls=false', 'eventstoredb'],
    ['esdb+discover://cluster:2113', 'eventstoredb'],
    ['kurrentdb://localhost:2113', 'eventstoredb'],
  ])('given EVENTSTORE_URL=%p, then the adapter is %s', (url, kind) => {
    expect(eventStoreKind(url)).toBe(kind);
  });

  it('given a URL of another kind, then it refuses instead of silently using Postgres', () => {
    expect(() => eventStoreKind('postgres://db/ledger')).toThrow(/not an esdb:\/\/ or kurrentdb:\/\/ URL/);
  });
});
