import type { SegmentRow } from '../../ledger/postgres/archive-segments';

/**
 * A written segment of the archive, as the table `ledger_archive_segments` records it (the event store's SegmentRow
 * without the row id) and manifest.json lists it.
 */
export type ArchivedSegment = Omit<SegmentRow, 'id'>;

/** manifest.json's `format`: the archiver writes it, the verifier refuses a manifest without it. */
export const ARCHIVE_MANIFEST_FORMAT = 'tollgate-ledger-archive/1';

/** The recorded segments in ledger order, read through `db`: a DataSource, or a query runner inside its transaction. */
export async function recordedSegments(db: { query(sql: string): Promise<Array<Record<string, string>>> }): Promise<ArchivedSegment[]> {
  const rows = await db.query(
    `SELECT file, month, first_position, last_position, event_count, bytes, sha256 FROM ledger_archive_segments ORDER BY first_position`,
  );
  return rows.map((row) => ({
    file: row.file,
    month: row.month,
    firstPosition: Number(row.first_position),
    lastPosition: Number(row.last_position),
    count: Number(row.event_count),
    bytes: Number(row.bytes),
    sha256: row.sha256,
  }));
}
