import type { MigrationInterface, QueryRunner } from 'typeorm';
import { LedgerAppendMany1732300005000 } from './1732300005000-ledger-append-many';

/**
 * `ledger_append_many(batch jsonb)` again (same signature, same result rows, same outcomes), now with a set-based
 * fast path for the relay's group commit, whose batches are up to 64 appends with expected revision 'any'.
 *
 * The version of migration 1732300005000 runs four statements per request under the ledger lock (ids parsed, ids
 * looked up, the stream's revision looked up, the INSERT), so a batch of 64 relay charges cost Postgres about
 * 100-150 µs of CPU per event on the 2-core dev machine, most of it while holding the lock every append waits for.
 * The fast path does the same work for the whole batch in a fixed number of statements:
 *
 * - before the lock, one statement unpacks the batch into arrays and decides whether the fast path applies
 *   (it depends on the batch alone, so it runs while another batch holds the lock);
 * - under the lock: the head; then ONE statement that looks up every event id of the batch at once, reads the
 *   current revision of each written stream once, and writes every new event with one INSERT ... SELECT
 *   (positions head + 1 ... in batch order, revisions by a running count per stream in batch order), returning
 *   each request's outcome; then the new head for the single NOTIFY.
 *
 * The fast path must answer exactly what the per-request loop (kept below, unchanged, for every other batch)
 * answers, including how requests of one batch see each other: the loop's request k sees the rows written by
 * requests 1 ... k-1. Across requests that only matters through shared event ids (a retried charge in the same
 * batch as its first attempt) and shared streams (revisions). Streams are handled by the running count. Shared
 * ids in general form a chain (k is written only if no earlier *written* request shares an id with it, and that
 * in turn depends on earlier ones), which has no simple set-based form; so the fast path is taken only when
 * requests that share any id share all of them (identical id sets). Then each group of such requests has one
 * "lead", the first of them: the lead is judged against the table exactly as the loop judges it, and a later
 * request of the group either sees the table exactly as the lead did (the lead wrote nothing: the same verdict
 * against the same stored rows, for its own stream) or sees all its ids written by the lead (duplicate with the
 * lead's revision and position when it names the same stream, id_in_other_stream otherwise).
 *
 * Fast path when the batch has at least four requests (below that the loop is cheaper: see the IF) and every
 * request: expects 'any'; names a stream; has at least one event, each with an id; repeats no id within itself; and
 * shares ids with other requests only as an identical set. Anything else (an expected revision, 'no_stream',
 * 'stream_exists', an empty request, a malformed one) takes the loop, which is the previous version verbatim, so it
 * keeps its exact answers and errors. ledger-append-many.int.spec.ts runs random batches through both versions and
 * compares outcomes, rows, errors and which path was taken.
 *
 * ledger_append (one append) keeps its body: routed through this function it would pay the batch machinery for a
 * single request, and its own four statements are already what the loop does for one request. It gets only
 * `SET enable_seqscan = off`, for the reason given on the function below: a plan made while `events` was nearly
 * empty must not keep scanning the whole ledger on a server where autovacuum never replans it.
 *
 * Unchanged: the advisory lock 7311002 before the head is read (positions gapless and visible in commit order,
 * docs/ledger.md), one pg_notify per batch that wrote something, nothing written for a request that conflicts.
 */
export class LedgerAppendManySetBased1732300005100 implements MigrationInterface {
  name = 'LedgerAppendManySetBased1732300005100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE OR REPLACE FUNCTION ledger_append_many(p_batch jsonb)
      RETURNS TABLE (ordinal bigint, outcome text, stream_revision bigint, last_position bigint, conflicting_ids uuid[])
      LANGUAGE plpgsql
      -- Plans that do not depend on when they were made. Generic, always: PL/pgSQL plans a statement for its
      -- parameter values on a connection's first five calls and keeps doing so while those looked cheaper than the
      -- generic plan, which small first batches (an idle relay) do; planning the statements below costs about as
      -- much as running them for 64 events. No sequential scans: every read of events here is by key (ids, a
      -- stream's last revision, the head), and a plan made while the table was nearly empty (a new installation;
      -- a server with autovacuum off, like the CI one, never replans) would otherwise keep scanning the whole ledger.
      SET plan_cache_mode = force_generic_plan
      SET enable_seqscan = off
      AS $$
      DECLARE
        -- Fast path: one element per request (index = its ordinal) ...
        v_fast boolean;
        v_req_stream text[];
        v_req_lead bigint[];
        -- ... and one per event (in no particular order: each carries its request and its place in it).
        v_ev_req bigint[];
        v_ev_seq bigint[];
        v_ev_id uuid[];
        v_ev_type text[];
        v_ev_data jsonb[];
        v_ev_metadata jsonb[];
        v_new_head bigint;
        -- The per-request loop (the previous version).
        v_item jsonb;
        v_ord bigint;
        v_stream text;
        v_expected text;
        v_events jsonb;
        v_ids uuid[];
        v_count integer;
        v_in_stream integer;
        v_elsewhere integer;
        v_dup_revision bigint;
        v_dup_position bigint;
        v_found uuid[];
        v_current bigint;
        v_head bigint;
        v_written integer := 0;
      BEGIN
        -- Small batches (an idle or lightly loaded relay) take the loop: the set-based statements cost about 100 µs
        -- more than the loop for a single request, and the loop's per-request cost only makes up for that from
        -- about four requests on (measured on the 2-core dev machine). The CASE keeps jsonb_array_length away from a non-array, which the
        -- loop rejects as it always did.
        IF (CASE WHEN jsonb_typeof(p_batch) = 'array' THEN jsonb_array_length(p_batch) >= 4 ELSE false END) THEN
          -- Unpack and classify the batch before taking the lock: this reads only p_batch, so it runs while another
          -- batch holds the lock. A request's lead is the first request (lowest ordinal) containing one of its ids.
          -- "Requests sharing an id have identical id sets" holds exactly when each request's ids all have the same
          -- lead and the request has as many distinct ids as its lead: its ids are then a subset of the lead's of
          -- the same size. Not fast either: a request without events (its one row here has a NULL id) or with an
          -- event without an id (n_rows > n); the loop answers those as it always did.
          WITH ev AS MATERIALIZED (
            SELECT b.ordinality AS req, e.ordinality AS seq, b.value->>'stream' AS stream, b.value->>'expected' AS expected,
                   (e.value->>'id')::uuid AS id, e.value->>'type' AS type, e.value->'data' AS data, e.value->'metadata' AS metadata
              FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS b
              LEFT JOIN LATERAL jsonb_array_elements(coalesce(b.value->'events', '[]'::jsonb)) WITH ORDINALITY AS e ON true
          ),
          req AS (
            SELECT l.req, min(l.stream) AS stream, bool_and(coalesce(l.expected = 'any', false)) AS expects_any,
                   count(*) AS n_rows, count(l.id) AS n, count(DISTINCT l.id) AS distinct_ids, min(l.lead) AS lead, max(l.lead) AS max_lead
              FROM (SELECT ev.req, ev.stream, ev.expected, ev.id,
                           CASE WHEN ev.id IS NOT NULL THEN min(ev.req) OVER (PARTITION BY ev.id) END AS lead
                      FROM ev) AS l
             GROUP BY l.req
          ),
          verdict AS (
            SELECT coalesce(bool_and(coalesce(r.expects_any AND r.stream IS NOT NULL AND r.n > 0 AND r.n_rows = r.n
                                              AND r.distinct_ids = r.n
                                              AND r.lead = r.max_lead AND lead_req.n = r.n, false)), false) AS fast,
                   array_agg(r.stream ORDER BY r.req) AS streams,
                   array_agg(r.lead ORDER BY r.req) AS leads
              FROM req r LEFT JOIN req lead_req ON lead_req.req = r.lead
          ),
          packed AS (
            SELECT array_agg(ev.req) AS reqs, array_agg(ev.seq) AS seqs, array_agg(ev.id) AS ids, array_agg(ev.type) AS types,
                   array_agg(ev.data) AS datas, array_agg(ev.metadata) AS metadatas
              FROM ev
          )
          SELECT v.fast, v.streams, v.leads, e.reqs, e.seqs, e.ids, e.types, e.datas, e.metadatas
            INTO v_fast, v_req_stream, v_req_lead, v_ev_req, v_ev_seq, v_ev_id, v_ev_type, v_ev_data, v_ev_metadata
            FROM verdict v CROSS JOIN packed e;
        ELSE
          v_fast := false;
        END IF;

        PERFORM pg_advisory_xact_lock(7311002);
        SELECT coalesce(max(position), 0) INTO v_head FROM events;

        IF v_fast THEN
          -- Lets a test see which path a batch took (SET client_min_messages = debug1); otherwise it goes nowhere.
          RAISE DEBUG 'ledger_append_many: set-based path';
          RETURN QUERY
          -- k: the event's place in the batch (requests in order, each request's events in order); i: its index in
          -- the v_ev_* arrays, by which the INSERT picks up the payload (so the steps between carry no jsonb).
          WITH ev AS (
            SELECT row_number() OVER (ORDER BY u.req, u.seq) AS k, u.i, u.req, v_req_stream[u.req] AS stream,
                   v_req_lead[u.req] AS lead, u.id
              FROM unnest(v_ev_req, v_ev_seq, v_ev_id) WITH ORDINALITY AS u(req, seq, id, i)
          ),
          -- Every id of the batch that is already stored: one index lookup for the batch instead of one per request.
          checked AS (
            SELECT ev.*, s.stream_id AS stored_stream, s.revision AS stored_revision, s.position AS stored_position,
                   count(s.event_id) OVER (PARTITION BY ev.req) AS stored_in_request
              FROM ev LEFT JOIN (SELECT e.event_id, e.stream_id, e.revision, e.position
                                   FROM events e WHERE e.event_id = ANY (v_ev_id)) AS s ON s.event_id = ev.id
          ),
          -- Written: the leads none of whose ids is stored (a later request of the group finds the lead's rows).
          -- Positions follow batch order; revisions count on per stream in batch order from its current one.
          writing AS (
            SELECT c.k, c.i, c.req, c.stream, c.id,
                   v_head + row_number() OVER (ORDER BY c.k) AS position,
                   row_number() OVER (PARTITION BY c.stream ORDER BY c.k) AS nth_in_stream
              FROM checked c
             WHERE c.req = c.lead AND c.stored_in_request = 0
          ),
          -- A stream's current revision: one index probe per written stream (on its first event in the batch, the
          -- CASE evaluates the subquery only there), shared with the stream's other events by the window.
          probed AS (
            SELECT w.*, CASE WHEN w.nth_in_stream = 1
                             THEN (SELECT max(e.revision) FROM events e WHERE e.stream_id = w.stream) END AS current_revision
              FROM writing w
          ),
          planned AS (
            SELECT p.k, p.i, p.req, p.stream, p.id, p.position,
                   coalesce(max(p.current_revision) OVER (PARTITION BY p.stream), -1) + p.nth_in_stream AS revision
              FROM probed p
          ),
          inserted AS (
            INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata)
            SELECT p.position, p.stream, p.revision, p.id, payload.type,
                   coalesce(payload.data, '{}'::jsonb), coalesce(payload.metadata, '{}'::jsonb)
              FROM planned p
              -- LEFT: the arrays come from one aggregate pass, so every i is there; if one ever were not, the NULL
              -- type fails the INSERT loudly instead of an inner join dropping an event that is answered 'ok'.
              LEFT JOIN unnest(v_ev_type, v_ev_data, v_ev_metadata) WITH ORDINALITY AS payload(type, data, metadata, i)
                ON payload.i = p.i
             ORDER BY p.k
          ),
          written AS (
            SELECT p.req, p.stream, max(p.revision) AS revision, max(p.position) AS position
              FROM planned p GROUP BY p.req, p.stream
          ),
          -- Each request against the stored rows, counted exactly as the loop counts them.
          judged AS (
            SELECT c.req, c.stream, c.lead, count(*) AS n,
                   count(*) FILTER (WHERE c.stored_stream = c.stream) AS in_stream,
                   count(*) FILTER (WHERE c.stored_stream <> c.stream) AS elsewhere,
                   max(c.stored_revision) FILTER (WHERE c.stored_stream = c.stream) AS dup_revision,
                   max(c.stored_position) FILTER (WHERE c.stored_stream = c.stream) AS dup_position,
                   coalesce(array_agg(c.id) FILTER (WHERE c.stored_stream IS NOT NULL), '{}') AS found,
                   array_agg(c.id ORDER BY c.k) AS ids
              FROM checked c GROUP BY c.req, c.stream, c.lead
          )
          -- w: what the request's lead wrote, if it wrote: the request itself (ok), or an earlier request with the
          -- same ids (duplicate of it in the same stream, id_in_other_stream elsewhere). Otherwise the stored rows
          -- decide, as in the loop.
          SELECT j.req,
                 CASE WHEN w.req = j.req THEN 'ok'
                      WHEN w.req IS NOT NULL AND w.stream = j.stream THEN 'duplicate'
                      WHEN w.req IS NOT NULL THEN 'id_in_other_stream'
                      WHEN j.in_stream = j.n THEN 'duplicate'
                      WHEN j.elsewhere > 0 THEN 'id_in_other_stream'
                      ELSE 'partial_duplicate' END,
                 CASE WHEN w.req IS NOT NULL AND w.stream = j.stream THEN w.revision
                      WHEN w.req IS NULL AND j.in_stream = j.n THEN j.dup_revision END,
                 CASE WHEN w.req IS NOT NULL AND w.stream = j.stream THEN w.position
                      WHEN w.req IS NULL AND j.in_stream = j.n THEN j.dup_position END,
                 CASE WHEN w.req IS NOT NULL AND w.stream <> j.stream THEN j.ids
                      WHEN w.req IS NULL AND j.in_stream <> j.n THEN j.found END
            FROM judged j LEFT JOIN written w ON w.req = j.lead
           ORDER BY j.req;

          -- The statement above cannot see its own inserts; this one can (the lock keeps everyone else out).
          SELECT max(e.position) INTO v_new_head FROM events e;
          IF v_new_head > v_head THEN
            PERFORM pg_notify('ledger_events', v_new_head::text);
          END IF;
          RETURN;
        END IF;

        -- Every other batch: request by request, each seeing what the earlier ones wrote.
        FOR v_item, v_ord IN SELECT b.value, b.ordinality FROM jsonb_array_elements(p_batch) WITH ORDINALITY AS b LOOP
          v_stream := v_item->>'stream';
          v_expected := v_item->>'expected';
          v_events := coalesce(v_item->'events', '[]'::jsonb);
          SELECT coalesce(array_agg((e.value->>'id')::uuid ORDER BY e.ordinality), '{}')
            INTO v_ids FROM jsonb_array_elements(v_events) WITH ORDINALITY AS e;
          v_count := cardinality(v_ids);

          SELECT count(*) FILTER (WHERE ev.stream_id = v_stream),
                 count(*) FILTER (WHERE ev.stream_id <> v_stream),
                 max(ev.revision) FILTER (WHERE ev.stream_id = v_stream),
                 max(ev.position) FILTER (WHERE ev.stream_id = v_stream),
                 coalesce(array_agg(ev.event_id), '{}')
            INTO v_in_stream, v_elsewhere, v_dup_revision, v_dup_position, v_found
            FROM events ev WHERE ev.event_id = ANY (v_ids);
          IF v_count > 0 AND v_in_stream = v_count THEN
            ordinal := v_ord; outcome := 'duplicate'; stream_revision := v_dup_revision;
            last_position := v_dup_position; conflicting_ids := NULL;
            RETURN NEXT;
            CONTINUE;
          END IF;
          IF v_in_stream + v_elsewhere > 0 THEN
            ordinal := v_ord;
            outcome := CASE WHEN v_elsewhere > 0 THEN 'id_in_other_stream' ELSE 'partial_duplicate' END;
            stream_revision := NULL; last_position := NULL; conflicting_ids := v_found;
            RETURN NEXT;
            CONTINUE;
          END IF;

          SELECT max(ev.revision) INTO v_current FROM events ev WHERE ev.stream_id = v_stream;
          IF NOT coalesce(CASE v_expected
               WHEN 'any' THEN true
               WHEN 'no_stream' THEN v_current IS NULL
               WHEN 'stream_exists' THEN v_current IS NOT NULL
               ELSE v_current = v_expected::bigint
             END, false) THEN
            ordinal := v_ord; outcome := 'wrong_expected_revision'; stream_revision := v_current;
            last_position := NULL; conflicting_ids := NULL;
            RETURN NEXT;
            CONTINUE;
          END IF;
          IF v_count = 0 THEN
            ordinal := v_ord; outcome := 'ok'; stream_revision := coalesce(v_current, -1);
            last_position := (SELECT max(ev.position) FROM events ev WHERE ev.stream_id = v_stream);
            conflicting_ids := NULL;
            RETURN NEXT;
            CONTINUE;
          END IF;

          INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata)
          SELECT v_head + e.ordinality, v_stream, coalesce(v_current, -1) + e.ordinality,
                 (e.value->>'id')::uuid, e.value->>'type',
                 coalesce(e.value->'data', '{}'::jsonb), coalesce(e.value->'metadata', '{}'::jsonb)
            FROM jsonb_array_elements(v_events) WITH ORDINALITY AS e;
          v_head := v_head + v_count;
          v_written := v_written + v_count;
          ordinal := v_ord; outcome := 'ok'; stream_revision := coalesce(v_current, -1) + v_count;
          last_position := v_head; conflicting_ids := NULL;
          RETURN NEXT;
        END LOOP;

        -- One notification for the batch, delivered at commit.
        IF v_written > 0 THEN
          PERFORM pg_notify('ledger_events', v_head::text);
        END IF;
      END $$`);
    await queryRunner.query('ALTER FUNCTION ledger_append(text, text, jsonb) SET enable_seqscan = off');
  }

  /** Back to the per-request loop of migration 1732300005000 (whose up() creates it; CREATE needs it gone first). */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER FUNCTION ledger_append(text, text, jsonb) RESET enable_seqscan');
    await queryRunner.query('DROP FUNCTION ledger_append_many(jsonb)');
    await new LedgerAppendMany1732300005000().up(queryRunner);
  }
}
