import { DomainError } from '../../common/http/errors';

/** A query parameter of the statement routes that is not what the route documents; nothing is read or written. */
export class StatementParamError extends DomainError {
  constructor(message: string) {
    super(message, 'statement_invalid_param');
  }
}

/** GET /api/statement/?user_id= names no account (never one that was deleted: its ledger and statement remain). */
export class StatementUserNotFoundError extends DomainError {
  constructor() {
    super('用户不存在', 'statement_user_not_found');
  }
}
