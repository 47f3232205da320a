import { COPY_BINARY_SIGNATURE, POSTGRES_EPOCH_MS, TWO_32 } from '#server/infrastructure/database/copy-binary-format';
import type { EventMetadata, RecordedEvent } from '../event-store.port';

/**
 * A page of `events` as `COPY (SELECT …) TO STDOUT (FORMAT binary)` (read by copy-page-worker.ts, on a thread of its
 * own) decoded here: the replay's reader (PostgresEventStore.readAllInBulk). Against a
 * SELECT through pg it saves the per-row work pg does for any query (a row object per row, a type parser per field:
 * the timestamp's text parsed by a regular expression, the bigints as text) and, against COPY's text format, the
 * un-escaping of every `data` (a compact charge's payload is a JSON string inside JSON, full of backslashes that the
 * text format doubles). In binary, each field comes with its length: text and jsonb as UTF-8 (jsonb after a version
 * byte), bigint and timestamptz as 8-byte integers. The events are the same objects readAll gives, field for field.
 */

/**
 * The columns in the order the decoder reads them. `event_id::text`: the uuid as readAll gives it, not its 16 bytes.
 * A compact charge (`data` exactly `{"v3": "<text>"}`, docs/ledger.md) comes as its text alone, in the column after
 * `data` (then NULL): Postgres hands the string over as it is stored, where `data` whole would be that text escaped
 * inside JSON, parsed here only to give the same string back (the codec parses the text itself, once).
 */
export const COMPACT_V3 = `type = 'QuotaConsumed' AND jsonb_typeof(data -> 'v3') = 'string' AND data - 'v3' = '{}'::jsonb`;
const SELECT_COLUMNS =
  `position, stream_id, revision, event_id::text, type, CASE WHEN ${COMPACT_V3} THEN NULL ELSE data END, ` +
  `CASE WHEN ${COMPACT_V3} THEN data ->> 'v3' END, metadata, created_at`;
const FIELDS = 9;

/** The COPY statement of the page after `after`, at most `maxCount` events (both checked whole numbers: no input text). */
export function eventPageCopy(after: number, maxCount: number): string {
  if (!Number.isSafeInteger(after) || after < 0) throw new RangeError(`readAllInBulk: after must be a whole number ≥ 0, got ${after}`);
  if (!Number.isSafeInteger(maxCount) || maxCount < 1)
    throw new RangeError(`readAllInBulk: maxCount must be a whole number ≥ 1, got ${maxCount}`);
  return `COPY (SELECT ${SELECT_COLUMNS} FROM events WHERE position > ${after} ORDER BY position LIMIT ${maxCount}) TO STDOUT (FORMAT binary)`;
}

/** Decodes COPY binary output of SELECT_COLUMNS into events. Throws on anything but that exact shape. */
export function decodeEventRows(buffer: Buffer): RecordedEvent[] {
  if (buffer.length < 19 || !buffer.subarray(0, 11).equals(COPY_BINARY_SIGNATURE)) throw new Error('COPY binary: no PGCOPY header');
  let at = 15 + 4 + buffer.readUInt32BE(15); // signature, flags, header extension (its length, then its bytes)
  const events: RecordedEvent[] = [];
  const int64 = (offset: number) => buffer.readInt32BE(offset) * TWO_32 + buffer.readUInt32BE(offset + 4);
  const text = (offset: number, length: number) => buffer.toString('utf8', offset, offset + length);
  /** The field at `at`: its start and length (checked present); `at` moves past it. */
  const field = (expected?: number, nullable = false): number => {
    const length = buffer.readInt32BE(at);
    if (length < 0) {
      if (!nullable) throw new Error('COPY binary: a NULL in a NOT NULL column of events');
      at += 4;
      return -1;
    }
    if (expected !== undefined && length !== expected)
      throw new Error(`COPY binary: a field of ${length} bytes where ${expected} were expected`);
    at += 4 + length;
    return length;
  };
  const json = (start: number, length: number): unknown => {
    if (buffer[start] !== 1) throw new Error(`COPY binary: jsonb version ${buffer[start]}`);
    // `{}`, the metadata of every compact charge, without a string and a parse.
    if (length === 3 && buffer[start + 1] === 0x7b && buffer[start + 2] === 0x7d) return {};
    return JSON.parse(text(start + 1, length - 1));
  };
  // The previous event's type, given again when the bytes are the same (most neighbours are charges): one string
  // shared by the page's events, which the projections' type lookups then compare by reference.
  let lastType = '';
  let lastTypeAt = -1;
  let lastTypeLength = -1;
  const typeOf = (offset: number, length: number): string => {
    if (length !== lastTypeLength || buffer.compare(buffer, lastTypeAt, lastTypeAt + length, offset, offset + length) !== 0) {
      lastType = text(offset, length);
      lastTypeLength = length;
    }
    lastTypeAt = offset;
    return lastType;
  };
  for (;;) {
    const count = buffer.readInt16BE(at);
    at += 2;
    if (count === -1) break; // the trailer
    if (count !== FIELDS) throw new Error(`COPY binary: a row of ${count} fields where ${FIELDS} were expected`);
    const positionAt = at + 4;
    field(8);
    const streamAt = at + 4;
    const streamLength = field();
    const revisionAt = at + 4;
    field(8);
    const idAt = at + 4;
    const idLength = field();
    const typeAt = at + 4;
    const typeLength = field();
    const dataAt = at + 4;
    const dataLength = field(undefined, true);
    const v3At = at + 4;
    const v3Length = field(undefined, true);
    if (dataLength < 0 === v3Length < 0) throw new Error('COPY binary: an event with both or neither of data and its v3 text');
    const metadataAt = at + 4;
    const metadataLength = field();
    const createdAt = at + 4;
    field(8);
    events.push({
      id: text(idAt, idLength),
      streamId: text(streamAt, streamLength),
      revision: int64(revisionAt),
      position: int64(positionAt),
      type: typeOf(typeAt, typeLength),
      data: dataLength < 0 ? { v3: text(v3At, v3Length) } : (json(dataAt, dataLength) as Record<string, unknown>),
      metadata: json(metadataAt, metadataLength) as EventMetadata,
      // Microseconds since 2000-01-01 down to whole milliseconds (floor), as pg's timestamp parser keeps them.
      createdAt: new Date(Math.floor(int64(createdAt) / 1000) + POSTGRES_EPOCH_MS),
    });
  }
  if (at !== buffer.length) throw new Error(`COPY binary: ${buffer.length - at} byte(s) after the trailer`);
  return events;
}
