import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The Postgres event store: an append-only `events` table and `ledger_append`, the only way to write to it.
 *
 * Position ordering: `ledger_append` takes a transaction-level advisory lock before it reads the head and
 * assigns positions, and the lock is released only after the commit is visible. So a transaction that gets a
 * higher position always commits after every lower one, and a reader that has seen position N can never later
 * find a new event below N. That is what lets readAll/subscriptions say "give me everything after N" without
 * skipping anything (a bigserial alone hands out numbers in nextval order, not commit order). Positions are
 * head + 1…n under the lock, so they are also gapless. docs/ledger.md has the reasoning and the trade-off.
 */
export class CreateLedgerEvents1732300000100 implements MigrationInterface {
  name = 'CreateLedgerEvents1732300000100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE events (
        position    bigint      PRIMARY KEY,
        stream_id   text        NOT NULL,
        revision    bigint      NOT NULL,
        event_id    uuid        NOT NULL,
        type        text        NOT NULL,
        data        jsonb       NOT NULL,
        metadata    jsonb       NOT NULL,
        created_at  timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_stream_revision_key UNIQUE (stream_id, revision),
        CONSTRAINT events_event_id_key UNIQUE (event_id)
      )`);

    // The audit trail is the product: history is never edited, not even by a stray admin query.
    await queryRunner.query(`
      CREATE FUNCTION ledger_reject_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events
      FOR EACH ROW EXECUTE FUNCTION ledger_reject_change()`);
    await queryRunner.query(`
      CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
      FOR EACH STATEMENT EXECUTE FUNCTION ledger_reject_change()`);

    // One call = one statement = one round trip and one transaction (autocommit). Outcomes instead of
    // exceptions so the adapter maps them without parsing error text.
    await queryRunner.query(`
      CREATE FUNCTION ledger_append(p_stream_id text, p_expected text, p_events jsonb)
      RETURNS TABLE (outcome text, stream_revision bigint, last_position bigint, conflicting_ids uuid[])
      LANGUAGE plpgsql AS $$
      DECLARE
        v_ids uuid[];
        v_count integer;
        v_in_stream integer;
        v_elsewhere integer;
        v_dup_revision bigint;
        v_dup_position bigint;
        v_found uuid[];
        v_current bigint;
        v_head bigint;
      BEGIN
        SELECT coalesce(array_agg((e.value->>'id')::uuid ORDER BY e.ordinality), '{}')
          INTO v_ids FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e;
        v_count := cardinality(v_ids);

        PERFORM pg_advisory_xact_lock(7311002);

        SELECT count(*) FILTER (WHERE stream_id = p_stream_id),
               count(*) FILTER (WHERE stream_id <> p_stream_id),
               max(revision) FILTER (WHERE stream_id = p_stream_id),
               max(position) FILTER (WHERE stream_id = p_stream_id),
               coalesce(array_agg(event_id), '{}')
          INTO v_in_stream, v_elsewhere, v_dup_revision, v_dup_position, v_found
          FROM events WHERE event_id = ANY (v_ids);
        IF v_count > 0 AND v_in_stream = v_count THEN
          RETURN QUERY SELECT 'duplicate'::text, v_dup_revision, v_dup_position, NULL::uuid[];
          RETURN;
        END IF;
        IF v_in_stream + v_elsewhere > 0 THEN
          RETURN QUERY SELECT CASE WHEN v_elsewhere > 0 THEN 'id_in_other_stream' ELSE 'partial_duplicate' END,
                              NULL::bigint, NULL::bigint, v_found;
          RETURN;
        END IF;

        SELECT max(revision) INTO v_current FROM events WHERE stream_id = p_stream_id;
        IF NOT coalesce(CASE p_expected
             WHEN 'any' THEN true
             WHEN 'no_stream' THEN v_current IS NULL
             WHEN 'stream_exists' THEN v_current IS NOT NULL
             ELSE v_current = p_expected::bigint
           END, false) THEN
          RETURN QUERY SELECT 'wrong_expected_revision'::text, v_current, NULL::bigint, NULL::uuid[];
          RETURN;
        END IF;
        IF v_count = 0 THEN
          RETURN QUERY SELECT 'ok'::text, coalesce(v_current, -1),
            (SELECT max(position) FROM events WHERE stream_id = p_stream_id), NULL::uuid[];
          RETURN;
        END IF;

        SELECT coalesce(max(position), 0) INTO v_head FROM events;
        INSERT INTO events (position, stream_id, revision, event_id, type, data, metadata)
        SELECT v_head + e.ordinality, p_stream_id, coalesce(v_current, -1) + e.ordinality,
               (e.value->>'id')::uuid, e.value->>'type',
               coalesce(e.value->'data', '{}'::jsonb), coalesce(e.value->'metadata', '{}'::jsonb)
          FROM jsonb_array_elements(p_events) WITH ORDINALITY AS e;
        -- Delivered at commit, so a woken subscriber always finds the rows.
        PERFORM pg_notify('ledger_events', (v_head + v_count)::text);
        RETURN QUERY SELECT 'ok'::text, coalesce(v_current, -1) + v_count, v_head + v_count, NULL::uuid[];
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION ledger_append(text, text, jsonb)');
    await queryRunner.query('DROP TABLE events');
    await queryRunner.query('DROP FUNCTION ledger_reject_change()');
  }
}
