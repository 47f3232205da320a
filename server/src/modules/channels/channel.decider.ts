import { InvalidParamsError } from '../../common/http/errors';
import { type AutoDecision, type ChannelEvent, ChannelStatus } from './channel.events';

/** What the status rules need of a channel, folded from its stream. A channel without events is enabled. */
export interface ChannelState {
  status: number;
}

export const initialChannelState: ChannelState = Object.freeze({ status: ChannelStatus.Enabled });

export type ChannelCommand =
  | { type: 'EnableChannel' }
  | { type: 'DisableChannel' }
  | ({ type: 'AutoDisableChannel' } & AutoDecision)
  | ({ type: 'AutoEnableChannel' } & AutoDecision)
  | { type: 'RecordChannelTest'; ok: boolean; responseTimeMs: number; model: string; error: string | null }
  | { type: 'RecordChannelBalance'; balance: number };

/**
 * Pure: what happens to a channel when `command` meets `state`.
 * - An admin enable or disable is a no-op when the channel already has that status; a manual disable of an
 *   auto-disabled channel makes it manual (so it stays off).
 * - Auto-disable only touches an enabled channel; auto-enable only revives an auto-disabled one, so a channel an
 *   admin switched off is never switched back on by a test.
 */
export function decide(command: ChannelCommand, state: ChannelState): ChannelEvent[] {
  switch (command.type) {
    case 'EnableChannel':
      return state.status === ChannelStatus.Enabled ? [] : [{ type: 'ChannelEnabled', data: { previousStatus: state.status } }];
    case 'DisableChannel':
      return state.status === ChannelStatus.ManuallyDisabled ? [] : [{ type: 'ChannelDisabled', data: { previousStatus: state.status } }];
    case 'AutoDisableChannel':
      return state.status === ChannelStatus.Enabled ? [{ type: 'ChannelAutoDisabled', data: autoDecision(command) }] : [];
    case 'AutoEnableChannel':
      return state.status === ChannelStatus.AutoDisabled ? [{ type: 'ChannelAutoEnabled', data: autoDecision(command) }] : [];
    case 'RecordChannelTest':
      if (!Number.isSafeInteger(command.responseTimeMs) || command.responseTimeMs < 0) throw new InvalidParamsError();
      return [
        {
          type: 'ChannelTested',
          data: { ok: command.ok, responseTimeMs: command.responseTimeMs, model: command.model, error: command.error },
        },
      ];
    case 'RecordChannelBalance':
      if (!Number.isFinite(command.balance)) throw new InvalidParamsError();
      return [{ type: 'ChannelBalanceUpdated', data: { balance: command.balance } }];
  }
}

function autoDecision(command: AutoDecision): AutoDecision {
  return { reasonCode: command.reasonCode, message: command.message, evidence: command.evidence };
}

/** Pure: the state after `event`. Tests and balances do not change the status. */
export function evolve(state: ChannelState, event: ChannelEvent): ChannelState {
  switch (event.type) {
    case 'ChannelEnabled':
    case 'ChannelAutoEnabled':
      return { status: ChannelStatus.Enabled };
    case 'ChannelDisabled':
      return { status: ChannelStatus.ManuallyDisabled };
    case 'ChannelAutoDisabled':
      return { status: ChannelStatus.AutoDisabled };
    case 'ChannelTested':
    case 'ChannelBalanceUpdated':
      return state;
    default:
      return assertNever(event);
  }
}

export function fold(events: readonly ChannelEvent[], state: ChannelState = initialChannelState): ChannelState {
  return events.reduce(evolve, state);
}

function assertNever(event: never): never {
  throw new Error(`Unhandled channel event ${JSON.stringify(event)}`);
}
