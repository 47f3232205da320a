import { Command } from '@nestjs/cqrs';

export interface StartChannelRunsInput {
  kind: 'test' | 'balance';
  /** The request id, or `periodic-<time>` for the scheduled run. */
  runId: string;
}

export interface StartChannelRunsResult {
  /** Jobs queued (one per channel). */
  queued: number;
}

/**
 * Queues one job per channel: `test` covers every channel, enabled or not (a passing test revives an
 * auto-disabled one); `balance` covers the enabled channels whose type has a balance endpoint. Refuses with
 * `测试已在运行中` while a previous test run still has jobs, as new-api allows one run at a time.
 */
export class StartChannelRunsCommand extends Command<StartChannelRunsResult> {
  constructor(readonly input: StartChannelRunsInput) {
    super();
  }
}
