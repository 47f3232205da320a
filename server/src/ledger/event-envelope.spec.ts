import { causedBy, eventMetadata, newEvent, systemActor, userActor } from './event-envelope';
import type { RecordedEvent } from './event-store.port';

describe('event envelope', () => {
  it('given a user action, when building an event, then metadata is complete with defaults for what was not given', () => {
    const event = newEvent(
      'QuotaAdjustedByAdmin',
      { before: 10, after: 20 },
      {
        id: '0f8fad5b-d9cb-469f-a165-70867728950e',
        metadata: { correlationId: 'req-1', reasonCode: 'admin_edit', actor: userActor(1, 100), clientIp: '10.0.0.1' },
      },
    );
    expect(event).toEqual({
      id: '0f8fad5b-d9cb-469f-a165-70867728950e',
      type: 'QuotaAdjustedByAdmin',
      data: { before: 10, after: 20 },
      metadata: {
        correlationId: 'req-1',
        causationId: null,
        actor: { type: 'user', userId: 1, role: 100 },
        clientIp: '10.0.0.1',
        reasonCode: 'admin_edit',
        schemaVersion: 1,
      },
    });
  });

  it('given a stored event, when a process step reacts to it, then correlation carries over and causation names it', () => {
    const cause = {
      id: 'c0ffee00-0000-4000-8000-000000000001',
      metadata: eventMetadata({ correlationId: 'req-9', reasonCode: 'redeem', actor: userActor(5, 1), clientIp: '1.2.3.4' }),
    } as RecordedEvent;
    expect(causedBy(cause, { reasonCode: 'redemption_credit' })).toEqual({
      correlationId: 'req-9',
      causationId: cause.id,
      actor: { type: 'user', userId: 5, role: 1 },
      clientIp: '1.2.3.4',
      reasonCode: 'redemption_credit',
      schemaVersion: 1,
    });
    expect(causedBy(cause, { reasonCode: 'x', actor: systemActor() }).actor).toEqual({ type: 'system' });
  });
});
