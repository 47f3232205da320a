import { type RedemptionEvent, RedemptionStatus, type RedemptionStatusValue } from './redemption.events';

/** One redemption code, folded from its stream (the redemptions read model stores exactly this). */
export interface RedemptionState {
  issued: boolean;
  id: number;
  key: string;
  name: string;
  quota: number;
  creatorId: number;
  createdTime: number;
  status: RedemptionStatusValue;
  usedUserId: number;
  redeemedTime: number;
  deleted: boolean;
}

export const initialRedemptionState: RedemptionState = Object.freeze({
  issued: false,
  id: 0,
  key: '',
  name: '',
  quota: 0,
  creatorId: 0,
  createdTime: 0,
  status: RedemptionStatus.Unused,
  usedUserId: 0,
  redeemedTime: 0,
  deleted: false,
});

/** Pure: the state after `event`. */
export function evolve(state: RedemptionState, event: RedemptionEvent): RedemptionState {
  switch (event.type) {
    case 'RedemptionCodeIssued':
      return { ...initialRedemptionState, ...event.data, issued: true };
    case 'RedemptionCodeEdited':
      return { ...state, name: event.data.name, quota: event.data.quota };
    case 'RedemptionCodeDisabled':
      return { ...state, status: RedemptionStatus.Disabled };
    case 'RedemptionCodeEnabled':
      return { ...state, status: RedemptionStatus.Unused };
    case 'RedemptionCodeDeleted':
      return { ...state, deleted: true };
    case 'RedemptionCodeRedeemed':
      return { ...state, status: RedemptionStatus.Used, usedUserId: event.data.userId, redeemedTime: event.data.redeemedTime };
    default:
      return assertNever(event);
  }
}

export function fold(events: readonly RedemptionEvent[], state: RedemptionState = initialRedemptionState): RedemptionState {
  return events.reduce(evolve, state);
}

function assertNever(event: never): never {
  throw new Error(`Unhandled redemption event ${JSON.stringify(event)}`);
}
