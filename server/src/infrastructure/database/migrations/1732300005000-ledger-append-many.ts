import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `ledger_append_many(batch jsonb)`: the relay's group commit. Several independent appends (each
 * `{stream, expected, events}`, exactly what one `ledger_append` call takes) in one statement and one
 * transaction, under the same advisory lock, so positions stay commit-ordered and gapless (docs/ledger.md).
 * Each request gets its own outcome row (ordinal = its 1-based index): a conflicting request writes nothing
 * and does not stop the others. One NOTIFY for the whole batch. The per-request logic is `ledger_append`'s.
 */
export class LedgerAppendMany1732300005000 implements MigrationInterface {
  name = 'LedgerAppendMany1732300005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION ledger_append_many(p_batch jsonb)
      RETURNS TABLE (ordinal bigint, outcome text, stream_revision bigint, last_position bigint, conflicting_ids uuid[])
      LANGUAGE plpgsql AS $$
      DECLARE
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
        PERFORM pg_advisory_xact_lock(7311002);
        SELECT coalesce(max(position), 0) INTO v_head FROM events;

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
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP FUNCTION ledger_append_many(jsonb)');
  }
}
