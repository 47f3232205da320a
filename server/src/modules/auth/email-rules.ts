import { AuthError } from './auth.errors';

/** The user field's limit (new-api's `email max 50`); checked where an address enters, so it always fits the column. */
export const EMAIL_MAX_LENGTH = 50;

const LOCAL_PART = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
const DOMAIN_LABEL = /^[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?$/u;

/**
 * new-api validates with go-playground's `required,email` (an RFC 5322 dot-atom check). This is the
 * same rule without quoted local parts, which no mailbox provider hands out and which would make the
 * `@` split ambiguous.
 */
export function isValidEmail(email: string): boolean {
  if (!email || [...email].length > EMAIL_MAX_LENGTH) return false;
  const at = email.lastIndexOf('@');
  if (at <= 0 || at !== email.indexOf('@')) return false;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (!LOCAL_PART.test(local)) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => DOMAIN_LABEL.test(label));
}

export interface EmailPolicy {
  domainRestrictionEnabled: boolean;
  /** The EmailDomainWhitelist option: comma separated, neither trimmed nor lower-cased (as new-api). */
  domainWhitelist: string;
  aliasRestrictionEnabled: boolean;
}

/**
 * Whitelist and alias rules for a verification code request. They apply only there: register and
 * email binding trust the code, which could only have been sent to an address that passed.
 */
export function assertEmailAllowed(email: string, policy: EmailPolicy): void {
  const [local, domain] = email.split('@');
  if (policy.domainRestrictionEnabled && !policy.domainWhitelist.split(',').includes(domain)) {
    throw new AuthError('email_domain_not_allowed');
  }
  if (policy.aliasRestrictionEnabled && (local.includes('+') || local.includes('.'))) {
    throw new AuthError('email_alias_not_allowed');
  }
}
