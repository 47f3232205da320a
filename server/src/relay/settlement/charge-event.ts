import { newEvent, userActor } from '../../ledger/event-envelope';
import { deterministicEventId } from '../../ledger/event-ids';
import type { NewEvent } from '../../ledger/event-store.port';
import { QUOTA_CONSUMED, type QuotaConsumedData } from '../../modules/accounts';

export const RELAY_REQUEST_NAMESPACE = 'relay-request';

/** The event id of a request's one charge: retried settlements append nothing new. */
export function quotaConsumedEventId(requestId: string): string {
  return deterministicEventId(RELAY_REQUEST_NAMESPACE, requestId);
}

/**
 * A relayed request's one QuotaConsumed as the ledger stores it (appended to accountStream(data.userId)): the charge
 * facts, its derived id and the relay's metadata. The one place the settlement builds it; the rebuild benchmark
 * (test/bench/rebuild) writes its charges through it too, so they are exactly what the relay writes.
 */
export function quotaConsumedEvent(data: QuotaConsumedData, caller: { userRole: number; clientIp: string }): NewEvent {
  return newEvent(QUOTA_CONSUMED, data as unknown as Record<string, unknown>, {
    id: quotaConsumedEventId(data.requestId),
    metadata: {
      correlationId: data.requestId,
      reasonCode: 'relay_request',
      actor: userActor(data.userId, caller.userRole),
      clientIp: caller.clientIp,
    },
  });
}
