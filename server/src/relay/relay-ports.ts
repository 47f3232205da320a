/**
 * What the relay needs from the tokens, channels and channel-health modules (cross-team contracts 1-3), as interfaces and
 * injection tokens. RelayModule binds each token to the owning module's class (`useExisting`), so the pipeline
 * and its specs depend only on these shapes and a spec can hand in a small in-test implementation.
 */

import type { ChannelOutcome } from '../modules/channel-health';
import type { RoutableChannel } from '../modules/channels';

export interface RelayCaller {
  token: { id: number; name: string; key: string; group: string; unlimitedQuota: boolean; modelLimits: ReadonlySet<string> | null };
  user: { id: number; username: string; group: string; role: number };
  /** Pricing and channel-selection group: the token's group when set, else the user's. */
  group: string;
  /** The admin-only `sk-KEY-CHANNELID` form: the forced channel id, else null. */
  specificChannelId: number | null;
}

export interface RelayAuthenticator {
  /** `tokenAuthOnly`: the model-list and billing routes skip Distribute's token checks (IP allow list, group, forced channel id), as new-api does. */
  authenticate(
    authorization: string | undefined,
    clientIp: string,
    model?: string,
    options?: { tokenAuthOnly?: boolean; quotaByReservation?: boolean },
  ): Promise<RelayCaller>;
  /** The reservation found the token empty: mark it exhausted and give the error authentication would have given. */
  tokenExhausted?(caller: RelayCaller, available: number): Promise<Error>;
}

/** The channel shape is the channels module's own (contract 2 plus status, test model and status-code mapping). */
export type { RoutableChannel } from '../modules/channels';

export interface RelayChannelRouter {
  select(group: string, model: string, options?: { retry?: number; exclude?: ReadonlySet<number> }): RoutableChannel | null;
  get(id: number): RoutableChannel | null;
  modelsForGroup(group: string): string[];
}

/** How one call to a channel went: channel-health's outcome, reported as is. */
export type RelayChannelOutcome = ChannelOutcome;

export interface RelayOutcomeReporter {
  report(outcome: RelayChannelOutcome): void;
}

export const RELAY_AUTHENTICATOR = Symbol('RELAY_AUTHENTICATOR');
export const RELAY_CHANNEL_ROUTER = Symbol('RELAY_CHANNEL_ROUTER');
export const RELAY_OUTCOME_REPORTER = Symbol('RELAY_OUTCOME_REPORTER');
