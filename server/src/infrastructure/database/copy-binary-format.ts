/**
 * The fixed parts of Postgres's COPY binary format, shared by the rebuild's ledger reader
 * (ledger/postgres/binary-event-copy.ts) and its row writer (projections/src/runner/copy-binary.ts).
 */

/** The 11-byte signature a COPY binary stream starts with (then int32 flags and the header extension's length). */
export const COPY_BINARY_SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
/** Milliseconds from the Unix epoch to Postgres's (2000-01-01), where binary timestamps count microseconds from. */
export const POSTGRES_EPOCH_MS = 946_684_800_000;
/** 2^32: an int64 field as two 32-bit halves. */
export const TWO_32 = 4_294_967_296;
