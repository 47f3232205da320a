/**
 * Events of the `channel-{id}` stream (channelStream): what happens to a channel, as opposed to its configuration
 * (the `channels` table). Type strings are stored in the ledger and stable forever. The reason code of each event
 * is in its metadata; auto events repeat it in their data beside the evidence that led to the decision.
 */
export const ChannelEventType = {
  ChannelEnabled: 'ChannelEnabled',
  ChannelDisabled: 'ChannelDisabled',
  ChannelAutoDisabled: 'ChannelAutoDisabled',
  ChannelAutoEnabled: 'ChannelAutoEnabled',
  ChannelTested: 'ChannelTested',
  ChannelBalanceUpdated: 'ChannelBalanceUpdated',
} as const;

/** Channel status as new-api stores it: 1 enabled, 2 manually disabled, 3 automatically disabled. */
export const ChannelStatus = { Enabled: 1, ManuallyDisabled: 2, AutoDisabled: 3 } as const;
export type ChannelStatusValue = (typeof ChannelStatus)[keyof typeof ChannelStatus];

/** Why an automatic decision was taken, and what it was taken on (status, error code, counts, response time…). */
export interface AutoDecision {
  reasonCode: string;
  /** The human reason shown in other_info.status_reason (the upstream's message, "余额不足" …). */
  message: string;
  evidence: Record<string, unknown>;
}

/** An admin (or the API) enabled the channel. */
export interface ChannelEnabled {
  type: 'ChannelEnabled';
  data: { previousStatus: number };
}

/** An admin disabled the channel (status 2): no automatic decision ever enables it again. */
export interface ChannelDisabled {
  type: 'ChannelDisabled';
  data: { previousStatus: number };
}

export interface ChannelAutoDisabled {
  type: 'ChannelAutoDisabled';
  data: AutoDecision;
}

export interface ChannelAutoEnabled {
  type: 'ChannelAutoEnabled';
  data: AutoDecision;
}

export interface ChannelTested {
  type: 'ChannelTested';
  data: { ok: boolean; responseTimeMs: number; model: string; error: string | null };
}

export interface ChannelBalanceUpdated {
  type: 'ChannelBalanceUpdated';
  /** US dollars, as new-api stores `balance`. */
  data: { balance: number };
}

export type ChannelEvent =
  | ChannelEnabled
  | ChannelDisabled
  | ChannelAutoDisabled
  | ChannelAutoEnabled
  | ChannelTested
  | ChannelBalanceUpdated;

export type ChannelEventTypeName = ChannelEvent['type'];

const KNOWN_TYPES = new Set<string>(Object.values(ChannelEventType));

export function isChannelEventType(type: string): type is ChannelEventTypeName {
  return KNOWN_TYPES.has(type);
}
