import { DomainError } from '../../common/http/errors';
import { RelayError } from '../../common/http/relay-error';

/** new-api answers a token that is not the caller's (or does not exist) with GORM's own text. */
export class TokenNotFoundError extends DomainError {
  constructor() {
    super('record not found', 'token_not_found');
  }
}

/** id 0 (or absent) in a token call, worded as new-api's model layer. */
export class TokenIdRequiredError extends DomainError {
  constructor() {
    super('id 或 userId 为空！', 'token_id_required');
  }
}

export class TokenNameTooLongError extends DomainError {
  constructor() {
    super('令牌名称过长', 'token_name_too_long');
  }
}

export class TokenCannotBeEnabledError extends DomainError {
  constructor(message: string, code: string) {
    super(message, code);
  }
}

/** A token group users may not pick (not in UserUsableGroups) or that has no ratio (not in GroupRatio). */
export class TokenGroupNotUsableError extends DomainError {
  constructor(message: string) {
    super(message, 'token_group_not_usable');
  }
}

/** An edit raced another edit of the same token's quota: answered, so the user decides again. */
export class TokenQuotaChangedError extends DomainError {
  constructor() {
    super('令牌额度已被同时修改，请刷新后重试', 'token_quota_changed');
  }
}

/** Fields that break a rule of ours (negative quota, malformed IP list…), with a message saying which. */
export class InvalidTokenFieldError extends DomainError {
  constructor(message: string) {
    super(message, 'invalid_token_field');
  }
}

export class NegativeTokenQuotaError extends DomainError {
  constructor() {
    super('令牌额度不能为负数', 'token_quota_negative');
  }
}

/**
 * A relay request refused by token authentication, with new-api's status and message. It is a RelayError in
 * the middleware (`abort`) shape, so relay routes answer it with the same OpenAI error body as before.
 */
export class TokenAuthError extends RelayError {
  constructor(status: number, message: string) {
    super(status, message);
    this.name = 'TokenAuthError';
  }
}
