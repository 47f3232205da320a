import { Injectable, Logger } from '@nestjs/common';
import { ProjectionTimeoutError } from '#projections/runner/projection';
import { ProjectionWaiter } from '#projections/runner/projection-waiter';

/**
 * Waits until the read models show a write before a console command answers, so the answer and the next list
 * the browser loads include it. The write itself is durable once appended: a projector that is slow (or not
 * running) delays the answer up to READ_YOUR_WRITES_TIMEOUT_MS and is reported, but never fails the command.
 */
@Injectable()
export class ReadYourWrites {
  private readonly logger = new Logger('ReadYourWrites');

  constructor(private readonly waiter: ProjectionWaiter) {}

  async wait(position: number): Promise<void> {
    try {
      await this.waiter.waitFor(position);
    } catch (error) {
      if (!(error instanceof ProjectionTimeoutError)) throw error;
      this.logger.warn(`${error.message}; answering before the read models caught up (is a projector running?)`);
    }
  }
}
