import { quotaConsumedFixture } from '#test/support/quota-consumed-fixture';
import { deterministicEventId } from '../../ledger/event-ids';
import { quotaConsumedEvent, quotaConsumedEventId, RELAY_REQUEST_NAMESPACE } from './charge-event';

describe('quotaConsumedEvent', () => {
  it('is the charge facts as they are, with the id derived from the request and the relay metadata', () => {
    const data = quotaConsumedFixture('req-7', 42, { quota: 120 });
    const event = quotaConsumedEvent(data, { userRole: 10, clientIp: '10.0.0.9' });
    expect(event).toEqual({
      id: deterministicEventId(RELAY_REQUEST_NAMESPACE, 'req-7'),
      type: 'QuotaConsumed',
      data,
      metadata: {
        correlationId: 'req-7',
        causationId: null,
        actor: { type: 'user', userId: 42, role: 10 },
        clientIp: '10.0.0.9',
        reasonCode: 'relay_request',
        schemaVersion: 1,
      },
    });
    expect(event.id).toBe(quotaConsumedEventId('req-7'));
  });

  it('gives a retried settlement of the same request the same id, another request another one', () => {
    const caller = { userRole: 1, clientIp: '' };
    expect(quotaConsumedEvent(quotaConsumedFixture('a', 1), caller).id).toBe(quotaConsumedEvent(quotaConsumedFixture('a', 1), caller).id);
    expect(quotaConsumedEvent(quotaConsumedFixture('a', 1), caller).id).not.toBe(
      quotaConsumedEvent(quotaConsumedFixture('b', 1), caller).id,
    );
  });
});
