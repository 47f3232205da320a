/**
 * Pure decisions about a channel's health: whether an outcome (a relay attempt, a channel test, a balance check)
 * auto-disables or auto-enables the channel. No I/O and no clock: the handler loads the channel's status, the
 * outcome window (Redis) and the options, and appends what this returns as a ChannelAutoDisabled or
 * ChannelAutoEnabled event.
 *
 * new-api disables on the first failure that matches its fatal list and
 * never looks at rates. Tollgate keeps the fatal list (a revoked key or an account out of credit is disabled at
 * once) but treats transient failures (5xx, 429, timeouts) as evidence to count: only a high failure count AND
 * a high failure rate within the window disables, so a 2% error rate never does.
 */

import { ChannelStatus } from '../../channels/channel.events';
import type { ChannelOutcome } from '../outcome/channel-outcome';

/** Gemini answers a bad or revoked key with 403, so new-api treats a 403 from it as fatal. */
const GEMINI_CHANNEL_TYPE = 24;

const FATAL_CODES = new Set(['invalid_api_key', 'account_deactivated', 'billing_not_active']);
const FATAL_TYPES = new Set(['insufficient_quota', 'insufficient_user_quota', 'authentication_error', 'permission_error', 'forbidden']);
const FATAL_PREFIXES = [
  'Your credit balance is too low',
  'This organization has been disabled.',
  'You exceeded your current quota',
  'Permission denied',
];
const FATAL_FRAGMENTS = [
  'The security token included in the request is invalid',
  'Operation not allowed',
  'Your account is not authorized',
];

export type OutcomeKind = 'ok' | 'fatal' | 'transient' | 'client';

/**
 * - fatal: the key or the account is unusable (new-api's ShouldDisableChannel list); retrying cannot help.
 * - transient: the upstream is unwell (5xx, 429, 408, timeouts, unreachable); counts toward the failure rate.
 * - client: any other error (400, 404, 422…): about the request, not the channel's health; neither counts.
 */
export function classifyOutcome(outcome: ChannelOutcome, channelType: number): OutcomeKind {
  if (outcome.ok) return 'ok';
  const { status } = outcome;
  if (status === 401) return 'fatal';
  if (status === 403 && channelType === GEMINI_CHANNEL_TYPE) return 'fatal';
  for (const value of [outcome.errorCode, outcome.errorType]) {
    if (value && (FATAL_CODES.has(value) || FATAL_TYPES.has(value))) return 'fatal';
  }
  const message = outcome.message ?? '';
  if (FATAL_PREFIXES.some((prefix) => message.startsWith(prefix))) return 'fatal';
  if (FATAL_FRAGMENTS.some((fragment) => message.includes(fragment))) return 'fatal';
  if (status === 0 || status === 408 || status === 429 || status >= 500) return 'transient';
  return 'client';
}

/** What the handler knows about the channel when it decides. */
export interface ChannelHealthState {
  status: number;
  autoBan: boolean;
  type: number;
}

/** Counts of the outcome window (the current outcome included), kept per channel in Redis. */
export interface OutcomeWindowCounts {
  /** Outcomes that say something about health: ok + transient + fatal (client errors are left out). */
  total: number;
  /** Transient and fatal failures. */
  failures: number;
}

export interface HealthPolicy {
  /** Option AutomaticDisableChannelEnabled. */
  autoDisableEnabled: boolean;
  /** Option AutomaticEnableChannelEnabled. */
  autoEnableEnabled: boolean;
  /** Option ChannelDisableThreshold in seconds; 0 turns the response-time rule off. */
  responseTimeThresholdSeconds: number;
  /** Transient failures needed within the window before the rate is even looked at. */
  minFailures: number;
  /** Failure share (0..1) that must be exceeded, with at least `minFailures` failures, to disable. */
  failureRate: number;
  windowSeconds: number;
}

export type DisableReasonCode = 'fatal_upstream_error' | 'failure_rate_exceeded' | 'response_time_exceeded' | 'balance_exhausted';
export type EnableReasonCode = 'test_passed';

/** Why a decision was taken: enough to explain it to an operator without re-running anything. */
export interface HealthEvidence {
  source: 'relay' | 'test' | 'balance';
  lastStatus: number;
  lastErrorCode: string | null;
  lastMessage: string;
  windowSeconds?: number;
  windowTotal?: number;
  windowFailures?: number;
  responseTimeMs?: number;
  thresholdMs?: number;
  balance?: number;
}

export type HealthDecision =
  | { kind: 'none'; why: string }
  | { kind: 'disable'; reasonCode: DisableReasonCode; reason: string; evidence: HealthEvidence }
  | { kind: 'enable'; reasonCode: EnableReasonCode; reason: string; evidence: HealthEvidence };

const none = (why: string): HealthDecision => ({ kind: 'none', why });

/** Pure: what an outcome does to a channel. */
export function decideOnOutcome(
  outcome: ChannelOutcome,
  state: ChannelHealthState,
  window: OutcomeWindowCounts,
  policy: HealthPolicy,
): HealthDecision {
  const kind = classifyOutcome(outcome, state.type);
  const evidence: HealthEvidence = {
    source: outcome.source,
    lastStatus: outcome.status,
    lastErrorCode: outcome.errorCode,
    lastMessage: outcome.message,
    windowSeconds: policy.windowSeconds,
    windowTotal: window.total,
    windowFailures: window.failures,
  };
  if (outcome.responseTimeMs !== undefined) evidence.responseTimeMs = outcome.responseTimeMs;

  if (kind === 'ok') {
    const slow = slowTest(outcome, policy);
    if (slow !== null) return disableForSlowness(state, { ...evidence, thresholdMs: slow });
    // Only a test revives a channel (new-api's test-all job), only one the system disabled, never one an admin did.
    if (outcome.source !== 'test') return none('relay success');
    if (state.status !== ChannelStatus.AutoDisabled) return none('not auto-disabled');
    if (!policy.autoEnableEnabled) return none('automatic enable is off');
    return { kind: 'enable', reasonCode: 'test_passed', reason: '测试通过', evidence };
  }

  if (state.status !== ChannelStatus.Enabled) return none('not enabled');
  if (!state.autoBan) return none('auto_ban is off for this channel');
  if (!policy.autoDisableEnabled) return none('automatic disable is off');
  if (kind === 'fatal') {
    return { kind: 'disable', reasonCode: 'fatal_upstream_error', reason: outcome.message || `status code ${outcome.status}`, evidence };
  }
  if (kind === 'client') return none('client error');
  const rate = window.total > 0 ? window.failures / window.total : 0;
  if (window.failures >= policy.minFailures && rate > policy.failureRate) {
    const percent = Math.round(rate * 100);
    return {
      kind: 'disable',
      reasonCode: 'failure_rate_exceeded',
      reason: `${window.failures}/${window.total} requests failed (${percent}%) in ${policy.windowSeconds}s; last: ${outcome.message || `status code ${outcome.status}`}`,
      evidence,
    };
  }
  return none('failure rate below the threshold');
}

/** The threshold in ms when a test took longer than ChannelDisableThreshold, else null. */
function slowTest(outcome: ChannelOutcome, policy: HealthPolicy): number | null {
  if (outcome.source !== 'test' || outcome.responseTimeMs === undefined) return null;
  if (!(policy.responseTimeThresholdSeconds > 0)) return null;
  const thresholdMs = policy.responseTimeThresholdSeconds * 1000;
  return outcome.responseTimeMs > thresholdMs ? thresholdMs : null;
}

/** The response-time rule ignores the global switch, as in new-api, but needs auto_ban and an enabled channel. */
function disableForSlowness(state: ChannelHealthState, evidence: HealthEvidence): HealthDecision {
  if (state.status !== ChannelStatus.Enabled) return none('not enabled');
  if (!state.autoBan) return none('auto_ban is off for this channel');
  const seconds = ((evidence.responseTimeMs ?? 0) / 1000).toFixed(2);
  return {
    kind: 'disable',
    reasonCode: 'response_time_exceeded',
    reason: `响应时间 ${seconds}s 超过阈值 ${((evidence.thresholdMs ?? 0) / 1000).toFixed(2)}s`,
    evidence,
  };
}

/**
 * The balance job disables an enabled channel whose balance is ≤ 0 with new-api's reason `余额不足`. Like
 * new-api it ignores the global switch; unlike it, it honours the channel's auto_ban.
 */
export function decideOnBalance(balance: number, state: ChannelHealthState): HealthDecision {
  if (balance > 0) return none('balance left');
  if (state.status !== ChannelStatus.Enabled) return none('not enabled');
  if (!state.autoBan) return none('auto_ban is off for this channel');
  return {
    kind: 'disable',
    reasonCode: 'balance_exhausted',
    reason: '余额不足',
    evidence: { source: 'balance', lastStatus: 200, lastErrorCode: null, lastMessage: '余额不足', balance },
  };
}
