import { Command } from '@nestjs/cqrs';

export interface FinishChannelTestRunInput {
  /** The run the ended job belonged to (`test-<request id>` for a manual run, `periodic-<time>` for a scheduled one). */
  runId: string;
}

export interface FinishChannelTestRunResult {
  /** True when this call found the run over and queued the root's mail ("通道测试完成"). */
  mailed: boolean;
}

/**
 * Sent by the channel-tests worker whenever one job of a test-all run has ended (done, or failed for good). When
 * none of the run's jobs is left (waiting, delayed, active…) a manual run mails the root user
 * "通道测试完成", as new-api does at the end of GET /api/channel/test; scheduled runs mail nothing (new-api's
 * automatic test passes notify=false). Several workers may see the end at once: one mail is sent.
 */
export class FinishChannelTestRunCommand extends Command<FinishChannelTestRunResult> {
  constructor(readonly input: FinishChannelTestRunInput) {
    super();
  }
}
