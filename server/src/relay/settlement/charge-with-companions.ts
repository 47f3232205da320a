import {
  type AppendOutcome,
  type AppendRequest,
  type AppendResult,
  EventIdConflictError,
  type EventStore,
  InvalidEventError,
  WrongExpectedRevisionError,
} from '../../ledger/event-store.port';

/** How often a companion whose append failed without an answer (outcome unknown) is tried, its charge being in. */
export const COMPANION_ATTEMPTS = 3;
const COMPANION_RETRY_MS = 100;

/** An answer of the store that is final: the append wrote nothing, and the same append would be refused again. */
function refused(error: Error): boolean {
  return error instanceof WrongExpectedRevisionError || error instanceof EventIdConflictError || error instanceof InvalidEventError;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * A companion's append once its charge is in the ledger. A failure whose outcome is unknown (the store unreachable,
 * a deadline) is retried with the same event ids: if it had committed, the retry is a no-op that answers ok, so a task
 * that does exist is never reported as refused (and its charge refunded while the task runs).
 */
async function appendCompanion(store: EventStore, request: AppendRequest): Promise<AppendOutcome> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await store.appendToStream(request.streamId, request.events, { expectedRevision: request.expectedRevision ?? 'any' });
      return { ok: true, result };
    } catch (thrown) {
      const error = asError(thrown);
      if (refused(error) || attempt >= COMPANION_ATTEMPTS) return { ok: false, error };
      await new Promise((resolve) => setTimeout(resolve, COMPANION_RETRY_MS * attempt));
    }
  }
}

/**
 * Appends a charge (a QuotaConsumed) and the appends that must not exist without it (an asynchronous task's first
 * event). Throws when the charge was not appended (nothing of the companions was then written, on any store);
 * otherwise answers the charge's result and each companion's outcome.
 *
 * - A store whose `appendMany` is one transaction (Postgres): the companions and the charge in one call, so a crash
 *   commits both or neither. A companion the store refuses alone writes nothing; the charge still commits.
 * - A store that appends one stream after another (EventStoreDB): the charge first, and the companions only once
 *   the charge is in the ledger. A task therefore never exists without its charge, so a refund of that task (it
 *   failed: `task_failed`; or its append was refused: `task_write_failed`) always gives back a charge the ledger
 *   holds. What a failure or a crash can leave between the two appends is a charge without its task, never a task
 *   that was not paid for nor a refund of a charge that is not there.
 */
export async function appendChargeWithCompanions(
  store: EventStore,
  charge: AppendRequest,
  companions: AppendRequest[],
): Promise<{ charge: AppendResult; companions: AppendOutcome[] }> {
  if (store.atomicAppendMany) {
    const outcomes = await store.appendMany([...companions, charge]);
    const last = outcomes[outcomes.length - 1];
    if (!last.ok) throw last.error;
    return { charge: last.result, companions: outcomes.slice(0, -1) };
  }
  const result = await store.appendToStream(charge.streamId, charge.events, { expectedRevision: charge.expectedRevision ?? 'any' });
  const outcomes: AppendOutcome[] = [];
  for (const companion of companions) outcomes.push(await appendCompanion(store, companion));
  return { charge: result, companions: outcomes };
}
