import { Inject, Injectable } from '@nestjs/common';
import {
  EVENT_STORE,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  WrongExpectedRevisionError,
} from './event-store.port';

/** The part of an event `evolve` needs: stored events and events about to be appended both have it. */
export type EventShape = Pick<RecordedEvent, 'type' | 'data'>;

export type Evolve<State> = (state: State, event: EventShape) => State;

/** Decides from the folded state; returns the events to append (none: nothing to do). May throw domain errors. */
export type Decide<State> = (state: State, stream: { revision: number | 'no_stream' }) => NewEvent[] | Promise<NewEvent[]>;

export interface LoadAndAppendOptions {
  /**
   * How many times a WrongExpectedRevisionError is answered by reloading and deciding again. Hot streams
   * (account balances under relay traffic) pass a few; admin edits pass 0 so the admin sees the conflict.
   */
  retries: number;
}

export interface LoadAndAppendResult<State> {
  /** State after the appended events. */
  state: State;
  events: NewEvent[];
  /** Stream revision after the append ('no_stream' if it still does not exist). */
  revision: number | 'no_stream';
  /** Global position to wait for (ProjectionWaiter) before reading the effect; 0 for an untouched empty stream. */
  position: number;
  attempts: number;
}

/**
 * Load → fold → decide → append with the expected revision, retrying on conflicts up to `retries` times.
 * Reads the whole stream on each attempt; long streams will want snapshots, which slot in here.
 */
export async function loadAndAppend<State>(
  store: EventStore,
  streamId: string,
  evolve: Evolve<State>,
  initialState: State,
  decide: Decide<State>,
  options: LoadAndAppendOptions,
): Promise<LoadAndAppendResult<State>> {
  for (let attempt = 1; ; attempt++) {
    const history = await store.readStream(streamId);
    const state = history.reduce(evolve, initialState);
    const last = history[history.length - 1];
    const revision: number | 'no_stream' = last ? last.revision : 'no_stream';
    const events = await decide(state, { revision });
    if (events.length === 0) return { state, events, revision, position: last?.position ?? 0, attempts: attempt };
    const expectedRevision: ExpectedRevision = revision;
    try {
      const result = await store.appendToStream(streamId, events, { expectedRevision });
      // A retried command whose events are already stored is a no-op append: they are in `state` already.
      const stored = new Set(history.map((event) => event.id));
      const replayed = events.every((event) => stored.has(event.id.toLowerCase()));
      return {
        state: replayed ? state : events.reduce(evolve, state),
        events,
        revision: result.nextExpectedRevision,
        position: result.position,
        attempts: attempt,
      };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt > options.retries) throw error;
    }
  }
}

/** loadAndAppend bound to the application's event store, for command handlers. */
@Injectable()
export class AggregateRepository {
  constructor(@Inject(EVENT_STORE) private readonly store: EventStore) {}

  loadAndAppend<State>(
    streamId: string,
    evolve: Evolve<State>,
    initialState: State,
    decide: Decide<State>,
    options: LoadAndAppendOptions,
  ): Promise<LoadAndAppendResult<State>> {
    return loadAndAppend(this.store, streamId, evolve, initialState, decide, options);
  }
}
