import { ChannelStatus } from '../../channels/channel.events';
import type { ChannelOutcome } from '../outcome/channel-outcome';
import {
  type ChannelHealthState,
  classifyOutcome,
  decideOnBalance,
  decideOnOutcome,
  type HealthDecision,
  type HealthPolicy,
  type OutcomeWindowCounts,
} from './channel-health.decider';

const policy: HealthPolicy = {
  autoDisableEnabled: true,
  autoEnableEnabled: true,
  responseTimeThresholdSeconds: 5,
  minFailures: 20,
  failureRate: 0.5,
  windowSeconds: 60,
};
const enabled: ChannelHealthState = { status: ChannelStatus.Enabled, autoBan: true, type: 1 };
const quiet: OutcomeWindowCounts = { total: 1, failures: 1 };

const failure = (overrides: Partial<ChannelOutcome> = {}): ChannelOutcome => ({
  channelId: 7,
  ok: false,
  status: 500,
  errorCode: null,
  message: 'upstream error',
  source: 'relay',
  ...overrides,
});
const success = (overrides: Partial<ChannelOutcome> = {}): ChannelOutcome => ({
  channelId: 7,
  ok: true,
  status: 200,
  errorCode: null,
  message: '',
  source: 'relay',
  ...overrides,
});

/** Deterministic pseudo-random numbers (mulberry32), so the spec is the same on every run. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Feeds outcomes through a sliding window the way the worker does (the window counts include the current
 * outcome), applying each decision to the state, and returns every decision taken.
 */
function run(
  outcomes: ChannelOutcome[],
  spacingMs: number,
  state: ChannelHealthState = enabled,
): { decisions: HealthDecision[]; state: ChannelHealthState } {
  const seen: Array<{ at: number; failed: boolean; counted: boolean }> = [];
  const decisions: HealthDecision[] = [];
  let current = state;
  outcomes.forEach((outcome, index) => {
    const at = index * spacingMs;
    const kind = classifyOutcome(outcome, current.type);
    seen.push({ at, failed: kind === 'fatal' || kind === 'transient', counted: kind !== 'client' });
    const inWindow = seen.filter((entry) => entry.counted && entry.at > at - policy.windowSeconds * 1000);
    const decision = decideOnOutcome(
      outcome,
      current,
      { total: inWindow.length, failures: inWindow.filter((entry) => entry.failed).length },
      policy,
    );
    decisions.push(decision);
    if (decision.kind === 'disable') current = { ...current, status: ChannelStatus.AutoDisabled };
    if (decision.kind === 'enable') current = { ...current, status: ChannelStatus.Enabled };
  });
  return { decisions, state: current };
}

describe('classifyOutcome', () => {
  it.each([
    [failure({ status: 401 }), 1, 'fatal'],
    [failure({ status: 403 }), 24, 'fatal'],
    [failure({ status: 403 }), 1, 'client'],
    [failure({ status: 400, errorCode: 'invalid_api_key' }), 1, 'fatal'],
    [failure({ status: 429, errorCode: 'insufficient_quota' }), 1, 'fatal'],
    [failure({ status: 400, errorType: 'authentication_error' }), 14, 'fatal'],
    [failure({ status: 400, errorCode: 'x', errorType: 'authentication_error' }), 1, 'fatal'],
    [failure({ status: 400, message: 'Your credit balance is too low to access the API' }), 14, 'fatal'],
    [failure({ status: 400, message: 'You exceeded your current quota, please check your plan' }), 1, 'fatal'],
    [failure({ status: 400, message: 'The security token included in the request is invalid.' }), 33, 'fatal'],
    [failure({ status: 500 }), 1, 'transient'],
    [failure({ status: 502 }), 1, 'transient'],
    [failure({ status: 429, errorCode: 'rate_limit_exceeded' }), 1, 'transient'],
    [failure({ status: 0, message: 'timeout' }), 1, 'transient'],
    [failure({ status: 408 }), 1, 'transient'],
    [failure({ status: 400 }), 1, 'client'],
    [failure({ status: 404 }), 1, 'client'],
    [success(), 1, 'ok'],
  ])('%j on type %d is %s', (outcome, type, kind) => {
    expect(classifyOutcome(outcome, type)).toBe(kind);
  });
});

describe('decideOnOutcome', () => {
  it('given an enabled channel, when the upstream answers 401, then it is disabled at once with the evidence', () => {
    const decision = decideOnOutcome(
      failure({ status: 401, message: 'Incorrect API key provided', errorCode: 'invalid_api_key' }),
      enabled,
      quiet,
      policy,
    );
    expect(decision).toEqual({
      kind: 'disable',
      reasonCode: 'fatal_upstream_error',
      reason: 'Incorrect API key provided',
      evidence: {
        source: 'relay',
        lastStatus: 401,
        lastErrorCode: 'invalid_api_key',
        lastMessage: 'Incorrect API key provided',
        windowSeconds: 60,
        windowTotal: 1,
        windowFailures: 1,
      },
    });
  });

  it('given 2% of 1,000 outcomes fail at random, then the channel is never disabled', () => {
    for (const seed of [1, 2, 3, 42, 2024]) {
      const random = seeded(seed);
      const outcomes = Array.from({ length: 1000 }, () => (random() < 0.02 ? failure({ status: random() < 0.5 ? 500 : 503 }) : success()));
      expect(outcomes.filter((outcome) => !outcome.ok).length).toBeGreaterThan(5);
      // 1,000 outcomes in 10 s: all of them in one 60 s window.
      const { decisions, state } = run(outcomes, 10);
      expect(decisions.filter((decision) => decision.kind !== 'none')).toEqual([]);
      expect(state.status).toBe(ChannelStatus.Enabled);
    }
  });

  it('given exactly 20 failures among 1,000 outcomes (2%), spread or bunched, then the channel is never disabled', () => {
    const spread = Array.from({ length: 1000 }, (_, index) => (index % 50 === 49 ? failure() : success()));
    expect(run(spread, 10).state.status).toBe(ChannelStatus.Enabled);
    // The worst case: the 20 failures back to back after 980 successes.
    const bunched = Array.from({ length: 1000 }, (_, index) => (index >= 980 ? failure({ status: 502 }) : success()));
    expect(run(bunched, 10).state.status).toBe(ChannelStatus.Enabled);
  });

  it('given a channel failing most requests, then it is disabled once the failure count and the rate are both reached', () => {
    const outcomes = Array.from({ length: 60 }, (_, index) =>
      index % 4 === 0 ? success() : failure({ status: 503, message: 'overloaded' }),
    );
    const { decisions, state } = run(outcomes, 100);
    const disables = decisions.filter((decision) => decision.kind === 'disable');
    expect(disables).toHaveLength(1);
    expect(state.status).toBe(ChannelStatus.AutoDisabled);
    const first = decisions.findIndex((decision) => decision.kind === 'disable');
    expect(disables[0]).toMatchObject({
      reasonCode: 'failure_rate_exceeded',
      evidence: { windowFailures: 20, lastStatus: 503, lastMessage: 'overloaded' },
    });
    expect((disables[0] as { evidence: { windowTotal: number } }).evidence.windowTotal).toBe(first + 1);
  });

  it('given fewer failures than the minimum, even at a 100% rate, then nothing is disabled', () => {
    expect(decideOnOutcome(failure(), enabled, { total: 19, failures: 19 }, policy).kind).toBe('none');
    expect(decideOnOutcome(failure(), enabled, { total: 20, failures: 20 }, policy).kind).toBe('disable');
    expect(decideOnOutcome(failure(), enabled, { total: 40, failures: 20 }, policy).kind).toBe('none');
  });

  it('given failures spaced wider than the window, then they never add up', () => {
    const outcomes = Array.from({ length: 100 }, () => failure({ status: 500 }));
    expect(run(outcomes, 5_000).state.status).toBe(ChannelStatus.Enabled);
  });

  it('client errors (400, 404) never disable and do not count', () => {
    const outcomes = Array.from({ length: 200 }, () => failure({ status: 400, message: 'bad request' }));
    expect(run(outcomes, 10).state.status).toBe(ChannelStatus.Enabled);
  });

  it('honours the global switch and the channel auto_ban for error-based disabling', () => {
    const fatal = failure({ status: 401 });
    expect(decideOnOutcome(fatal, enabled, quiet, { ...policy, autoDisableEnabled: false })).toEqual({
      kind: 'none',
      why: 'automatic disable is off',
    });
    expect(decideOnOutcome(fatal, { ...enabled, autoBan: false }, quiet, policy).kind).toBe('none');
  });

  it('never touches a manually disabled channel: no disable, and no auto-enable after a passing test', () => {
    const manual = { ...enabled, status: ChannelStatus.ManuallyDisabled };
    expect(decideOnOutcome(failure({ status: 401 }), manual, quiet, policy).kind).toBe('none');
    expect(decideOnOutcome(success({ source: 'test', responseTimeMs: 100 }), manual, { total: 1, failures: 0 }, policy)).toEqual({
      kind: 'none',
      why: 'not auto-disabled',
    });
  });

  it('given an auto-disabled channel, a passing test enables it when AutomaticEnableChannelEnabled is on', () => {
    const disabled = { ...enabled, status: ChannelStatus.AutoDisabled };
    const passing = success({ source: 'test', responseTimeMs: 320 });
    expect(decideOnOutcome(passing, disabled, { total: 1, failures: 0 }, policy)).toMatchObject({
      kind: 'enable',
      reasonCode: 'test_passed',
      evidence: { source: 'test', lastStatus: 200, responseTimeMs: 320 },
    });
    expect(decideOnOutcome(passing, disabled, { total: 1, failures: 0 }, { ...policy, autoEnableEnabled: false }).kind).toBe('none');
    // Relay successes do not revive a channel (an auto-disabled channel gets no relay traffic anyway).
    expect(decideOnOutcome(success(), disabled, { total: 1, failures: 0 }, policy).kind).toBe('none');
  });

  it('applies ChannelDisableThreshold to tests only, ignoring the global switch but not auto_ban', () => {
    const slow = success({ source: 'test', responseTimeMs: 6_000 });
    const noSwitch = { ...policy, autoDisableEnabled: false };
    expect(decideOnOutcome(slow, enabled, { total: 1, failures: 0 }, noSwitch)).toMatchObject({
      kind: 'disable',
      reasonCode: 'response_time_exceeded',
      evidence: { responseTimeMs: 6_000, thresholdMs: 5_000 },
    });
    expect(decideOnOutcome(slow, { ...enabled, autoBan: false }, { total: 1, failures: 0 }, policy).kind).toBe('none');
    expect(decideOnOutcome(slow, enabled, { total: 1, failures: 0 }, { ...policy, responseTimeThresholdSeconds: 0 }).kind).toBe('none');
    expect(decideOnOutcome(success({ source: 'test', responseTimeMs: 4_999 }), enabled, { total: 1, failures: 0 }, policy).kind).toBe(
      'none',
    );
    // A slow test of an auto-disabled channel keeps it disabled rather than enabling it.
    expect(decideOnOutcome(slow, { ...enabled, status: ChannelStatus.AutoDisabled }, { total: 1, failures: 0 }, policy).kind).toBe('none');
  });
});

describe('decideOnBalance', () => {
  it('disables an enabled auto_ban channel with no balance left, with the reason new-api gives', () => {
    expect(decideOnBalance(0, enabled)).toMatchObject({
      kind: 'disable',
      reasonCode: 'balance_exhausted',
      reason: '余额不足',
      evidence: { balance: 0 },
    });
    expect(decideOnBalance(-1.5, enabled).kind).toBe('disable');
    expect(decideOnBalance(0.01, enabled).kind).toBe('none');
    expect(decideOnBalance(0, { ...enabled, autoBan: false }).kind).toBe('none');
    expect(decideOnBalance(0, { ...enabled, status: ChannelStatus.ManuallyDisabled }).kind).toBe('none');
  });
});
