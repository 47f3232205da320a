import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';
import type { HealthDecision } from '../../decider/channel-health.decider';
import type { ChannelOutcome } from '../../outcome/channel-outcome';

export interface ApplyChannelOutcomeInput {
  outcome: ChannelOutcome;
  /** Identical outcomes this input stands for (a flush of aggregated relay successes); 1 when absent. */
  count?: number;
  /** Relay successes observed before this outcome and not counted yet: counted in the same window update. */
  precedingSuccesses?: number;
  /** When the outcome was observed (ms since the epoch): places it in the failure window. */
  observedAtMs: number;
  /** Identifies the outcome (queue job id, test request id): a retried job decides and appends nothing new. */
  causeKey: string;
  correlationId: string;
  actor: Actor;
}

export interface ApplyChannelOutcomeResult {
  decision: HealthDecision;
  /** Ledger position to wait for (0: nothing appended). */
  position: number;
}

/**
 * Feeds one outcome (relay attempt or channel test) to the channel's health rules: counts it in the failure
 * window, decides, and appends ChannelAutoDisabled or ChannelAutoEnabled when the decision says so.
 */
export class ApplyChannelOutcomeCommand extends Command<ApplyChannelOutcomeResult> {
  constructor(readonly input: ApplyChannelOutcomeInput) {
    super();
  }
}
