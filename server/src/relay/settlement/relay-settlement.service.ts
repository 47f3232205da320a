import { Inject, Injectable, Logger } from '@nestjs/common';
import { userActor } from '../../ledger/event-envelope';
import { newEvent } from '../../ledger/event-envelope';
import { deterministicEventId } from '../../ledger/event-ids';
import { EVENT_STORE, type EventStore } from '../../ledger/event-store.port';
import { accountStream } from '../../ledger/streams';
import { QuotaAdmissionService } from '../admission/quota-admission.service';
import { GroupCommitAppender, type GroupCommitOptions, groupCommitOptionsFromEnv } from './group-commit';
import { QUOTA_CONSUMED, type QuotaConsumedData } from './quota-consumed.event';

export interface SettlementInput {
  data: QuotaConsumedData;
  userRole: number;
  clientIp: string;
  /** The reservation's token (null: unlimited token or playground). */
  reservedTokenId: number | null;
}

export const RELAY_REQUEST_NAMESPACE = 'relay-request';

/** The event id of a request's one charge: retried settlements append nothing new. */
export function quotaConsumedEventId(requestId: string): string {
  return deterministicEventId(RELAY_REQUEST_NAMESPACE, requestId);
}

/**
 * Turns a reservation into the request's one QuotaConsumed event (appended through group commit, see
 * group-commit.ts), then moves the reservation into admission's settled set at the event's position. The caller answers the client only after this resolves, so a response
 * is never reported complete before its charge is durable.
 *
 * If the append fails, the reservation is deliberately left held: the append may have committed, and the lease
 * sweep turns an expired reservation into a settled-like entry until the projection passes the head, so the
 * quota is neither freed twice nor kept forever.
 */
@Injectable()
export class RelaySettlementService {
  private readonly logger = new Logger(RelaySettlementService.name);
  private appender: GroupCommitAppender;

  constructor(
    @Inject(EVENT_STORE) private readonly store: EventStore,
    private readonly admission: QuotaAdmissionService,
  ) {
    this.appender = new GroupCommitAppender(store, groupCommitOptionsFromEnv());
  }

  /** Replaces the group-commit settings (the throughput test compares them). */
  useGroupCommit(options: GroupCommitOptions): void {
    this.appender = new GroupCommitAppender(this.store, options);
  }

  groupCommitStats() {
    return this.appender.stats();
  }

  async settle(input: SettlementInput): Promise<{ position: number }> {
    const { data } = input;
    const event = newEvent(QUOTA_CONSUMED, data as unknown as Record<string, unknown>, {
      id: quotaConsumedEventId(data.requestId),
      metadata: {
        correlationId: data.requestId,
        reasonCode: 'relay_request',
        actor: userActor(data.userId, input.userRole),
        clientIp: input.clientIp,
      },
    });
    // Group commit: concurrent charges share one statement; this resolves only once ours is committed.
    const result = await this.appender.append({ streamId: accountStream(data.userId), events: [event], expectedRevision: 'any' });
    // Issued now, not waited for on the answer's path (one Redis round trip less per request): the script is
    // written to admission's Redis connection before this returns, and one connection's commands run in order, so
    // whatever this process asks admission next (the client's next request, a console read) sees the settlement.
    // If it fails, the charge is durable all the same and the lease sweep retires the reservation.
    this.admission
      .settle({
        requestId: data.requestId,
        userId: data.userId,
        tokenId: input.reservedTokenId,
        amount: data.quota,
        position: result.position,
      })
      .catch((error: unknown) => this.logger.error(`admission settle failed for ${data.requestId}: ${String(error)}`));
    return { position: result.position };
  }
}
