/**
 * given/when/then for decider specs: the given events are folded with the decider's own evolve, the command is
 * decided against that state, and the events (or the refusal) are compared.
 *
 *   const { given } = deciderSpec({ decide, evolve, initialState: initialAccountState });
 *   given([granted(10)]).when({ type: 'RewardInviter', amount: 300, inviteeId: 9 }).then([rewarded(300, 9)]);
 *   given([]).when(transfer(1)).thenThrows(AffiliateTransferBelowMinimumError, '划转失败 …');
 */
export interface Decider<Command, State, Event> {
  decide(command: Command, state: State): readonly Event[];
  evolve(state: State, event: Event): State;
  initialState: State;
}

type ErrorClass = new (...args: never[]) => Error;

export interface Given<Command, State, Event> {
  /** The state the given events fold to (for specs of evolve itself). */
  readonly state: State;
  when(command: Command): When<Event>;
}

export interface When<Event> {
  /** The command decides exactly these events (deep equality, order included); returns them to chain on. */
  then(expected: readonly Event[]): readonly Event[];
  /** The command is refused: with this error class and/or this message. */
  thenThrows(error: ErrorClass | string | RegExp, message?: string | RegExp): void;
}

export function deciderSpec<Command, State, Event>(decider: Decider<Command, State, Event>) {
  function given(events: readonly Event[]): Given<Command, State, Event> {
    const state = events.reduce((current, event) => decider.evolve(current, event), decider.initialState);
    return {
      state,
      when(command: Command): When<Event> {
        const run = () => decider.decide(command, state);
        return {
          then(expected) {
            const decided = run();
            expect(decided).toEqual(expected);
            return decided;
          },
          thenThrows(error, message) {
            expect(run).toThrow(error);
            if (message !== undefined) expect(run).toThrow(message);
          },
        };
      },
    };
  }
  return { given };
}

/** A decider whose stream has no state to decide against (decide(command) only). */
export function statelessDeciderSpec<Command, Event>(decide: (command: Command) => readonly Event[]) {
  return deciderSpec<Command, null, Event>({ decide, evolve: (state) => state, initialState: null });
}
