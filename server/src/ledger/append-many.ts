import type { AppendOutcome, AppendRequest, EventStore } from './event-store.port';

/**
 * `appendMany` for stores without a multi-stream append (EventStoreDB, in memory): the requests one after the
 * other, each with its own outcome. The semantics match the Postgres adapter's single statement except that the
 * appends are not one transaction, which the port does not promise across requests anyway.
 */
export async function appendSequentially(store: Pick<EventStore, 'appendToStream'>, requests: AppendRequest[]): Promise<AppendOutcome[]> {
  const outcomes: AppendOutcome[] = [];
  for (const request of requests) {
    try {
      const result = await store.appendToStream(request.streamId, request.events, { expectedRevision: request.expectedRevision ?? 'any' });
      outcomes.push({ ok: true, result });
    } catch (error) {
      outcomes.push({ ok: false, error: error instanceof Error ? error : new Error(String(error)) });
    }
  }
  return outcomes;
}
