import { Command } from '@nestjs/cqrs';
import type { Actor } from '#server/ledger/event-store.port';

export interface TestChannelInput {
  channelId: number;
  /** `?model=`; absent: test_model, else the first model, else gpt-3.5-turbo. */
  model?: string;
  /** The admin's request id, or the test-all run and job. A retried job appends nothing new. */
  causeKey: string;
  correlationId: string;
  actor: Actor;
  clientIp: string | null;
  /**
   * The admin's test of this one channel (GET /api/channel/test/:id). It records the response time but leaves the
   * ChannelDisableThreshold rule to the test-all run and the periodic test, as new-api does: clicking
   * "test" on a slow channel must not disable it. The fatal-error and auto-enable rules still apply.
   */
  single?: boolean;
}

export interface TestChannelResult {
  ok: boolean;
  message: string;
  /** Seconds, as GET /api/channel/test/:id answers `time`. */
  time: number;
  responseTimeMs: number;
  /** What the health rules did with the result. */
  decision: 'none' | 'disable' | 'enable';
  position: number;
}

/**
 * Tests one channel as new-api does: the synthetic chat through the channel's adapter, then
 * ChannelTested with the response time, then the health rules (ChannelDisableThreshold unless `single`, the fatal
 * errors, and the auto-enable of a recovered auto-disabled channel). The HTTP route and the channel-tests worker
 * both run it.
 */
export class TestChannelCommand extends Command<TestChannelResult> {
  constructor(readonly input: TestChannelInput) {
    super();
  }
}
