import { DomainError } from '../../common/http/errors';

/** DELETE /api/log/ without a usable target_timestamp (missing, 0, or not a number): new-api's message. */
export class TargetTimestampRequiredError extends DomainError {
  constructor() {
    super('target timestamp is required', 'target_timestamp_required');
  }
}
