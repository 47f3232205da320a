import { COPY_BINARY_SIGNATURE, POSTGRES_EPOCH_MS, TWO_32 } from '#server/infrastructure/database/copy-binary-format';

/**
 * Rows in COPY's binary format (`COPY … FROM STDIN (FORMAT binary)`), the rebuild's usual way of writing them
 * (copy-rows.ts). Against the text format it spares both sides the text of every number (here String() and the
 * escaping of each field, in Postgres the parsing of each integer and float), and it is written straight into
 * Buffers: no string per row or per chunk for the collector to move. Each field is its length (int32) and its bytes;
 * each row starts with its field count (int16); the stream starts with the signature and ends with -1.
 *
 * Only for the column types below, and only for the JS values each naturally holds (a number or bigint for an
 * integer within its range, a finite number for a float, a boolean, a string without NUL for text, a string or an
 * object for jsonb, a canonical uuid, a valid Date). Anything else in a batch (a table with another type, a numeric
 * string, an integer out of range) makes `binaryRows` return null, and the batch goes as text exactly as before, so
 * Postgres takes or refuses it as it always did.
 */

export type ColumnKind = 'int2' | 'int4' | 'int8' | 'float8' | 'bool' | 'text' | 'jsonb' | 'uuid' | 'timestamptz';

/** Postgres type names (pg_type.typname) written in binary, by the kind of value they take. */
export const BINARY_KINDS: Readonly<Record<string, ColumnKind>> = {
  int2: 'int2',
  int4: 'int4',
  int8: 'int8',
  float8: 'float8',
  bool: 'bool',
  text: 'text',
  varchar: 'text', // varcharrecv checks the length limit as varchar's text input does
  bpchar: 'text', // bpcharrecv pads and checks as character(n)'s text input does
  jsonb: 'jsonb',
  uuid: 'uuid',
  timestamptz: 'timestamptz',
};

/** Bytes of a chunk handed to the COPY stream (a field longer than that gets a chunk of its own size). */
const CHUNK = 128 * 1024;
/** Where a canonical uuid's text has its dashes, and where each of its 16 bytes' two hex digits start. */
const UUID_DASHES = [8, 13, 18, 23];
const UUID_PAIRS = [0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34];
/** The value of each hex digit by its character code (-1: not one). */
const HEX = Int8Array.from({ length: 128 }, (_, code) => {
  const digit = String.fromCharCode(code).toLowerCase();
  return /[0-9a-f]/.test(digit) ? parseInt(digit, 16) : -1;
});
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

/** A value the binary encoding does not take: the batch goes as text. */
class NotBinary extends Error {}
const NOT_BINARY = new NotBinary();

/** Strings up to this many UTF-16 units are written by a loop here while they are ASCII; longer ones by Buffer.write. */
const SHORT_TEXT = 64;

class ChunkWriter {
  readonly chunks: Buffer[] = [];
  buffer = Buffer.allocUnsafe(CHUNK);
  at = 0;

  /** Room for `bytes` more in the current chunk (a new chunk when it has not). */
  room(bytes: number): void {
    if (this.at + bytes <= this.buffer.length) return;
    if (this.at > 0) this.chunks.push(this.buffer.subarray(0, this.at));
    this.buffer = Buffer.allocUnsafe(Math.max(CHUNK, bytes));
    this.at = 0;
  }

  // The words are written byte by byte (a Uint8Array store keeps the low 8 bits): Buffer's writeInt32BE and its
  // kin check their arguments on every call, and a row is mostly such words.

  int16(value: number): void {
    this.room(2);
    const buffer = this.buffer;
    const at = this.at;
    buffer[at] = value >> 8;
    buffer[at + 1] = value;
    this.at = at + 2;
  }

  /** A field of `length` bytes follows: its length word (-1: NULL). */
  int32(value: number): void {
    this.room(4);
    this.at = word(this.buffer, this.at, value);
  }

  /** A field of 4 bytes holding an integer within int32. */
  int32Field(value: number): void {
    this.room(8);
    const buffer = this.buffer;
    this.at = word(buffer, word(buffer, this.at, 4), value);
  }

  /** A field of 2 bytes holding an integer within int16. */
  int16Field(value: number): void {
    this.room(6);
    const buffer = this.buffer;
    const at = word(buffer, this.at, 2);
    buffer[at] = value >> 8;
    buffer[at + 1] = value;
    this.at = at + 2;
  }

  /** A field of 8 bytes holding a safe integer, two's complement. */
  int64Field(value: number): void {
    this.room(12);
    const high = Math.floor(value / TWO_32);
    const buffer = this.buffer;
    // The low word is below 2^32: `| 0` keeps its bits (as a negative int32 when the top one is set).
    this.at = word(buffer, word(buffer, word(buffer, this.at, 8), high), (value - high * TWO_32) | 0);
  }

  /** A field holding `text` as UTF-8, after `prefix` bytes (jsonb's version byte); NOT_BINARY when it holds a NUL. */
  textField(text: string, prefix?: number): void {
    const length = text.length;
    // At most 3 bytes per UTF-16 unit (a surrogate pair: 4 bytes for 2 units).
    this.room(5 + length * 3);
    const buffer = this.buffer;
    const start = this.at + 4;
    let at = start;
    if (prefix !== undefined) buffer[at++] = prefix;
    let i = 0;
    if (length <= SHORT_TEXT) {
      for (; i < length; i++) {
        const unit = text.charCodeAt(i);
        if (unit >= 0x80 || unit === 0) break;
        buffer[at++] = unit;
      }
    }
    if (i < length) {
      const rest = i === 0 ? text : text.slice(i);
      if (rest.includes('\u0000')) throw NOT_BINARY;
      at += buffer.write(rest, at, 'utf8');
    }
    word(buffer, this.at, at - start);
    this.at = at;
  }

  /** A field of 16 bytes from a uuid in its canonical text (8-4-4-4-12 hex digits, either case); else NOT_BINARY. */
  uuidField(text: string): void {
    if (text.length !== 36) throw NOT_BINARY;
    this.room(20);
    const buffer = this.buffer;
    for (const dash of UUID_DASHES) if (text.charCodeAt(dash) !== 0x2d) throw NOT_BINARY;
    let at = word(buffer, this.at, 16);
    for (const pair of UUID_PAIRS) {
      const high = HEX[text.charCodeAt(pair)] ?? -1;
      const low = HEX[text.charCodeAt(pair + 1)] ?? -1;
      if (high < 0 || low < 0) throw NOT_BINARY;
      buffer[at++] = (high << 4) | low;
    }
    this.at = at;
  }

  end(): Buffer[] {
    this.int16(-1);
    this.chunks.push(this.buffer.subarray(0, this.at));
    return this.chunks;
  }
}

/** `value`'s 32 bits, big-endian, at `at` (room made by the caller); the offset after them. */
function word(buffer: Buffer, at: number, value: number): number {
  buffer[at] = value >> 24;
  buffer[at + 1] = value >> 16;
  buffer[at + 2] = value >> 8;
  buffer[at + 3] = value;
  return at + 4;
}

function integer(out: ChunkWriter, value: unknown, bytes: 2 | 4, min: number, max: number): void {
  let number: number;
  if (typeof value === 'number') number = value;
  else if (typeof value === 'bigint' && value >= BigInt(min) && value <= BigInt(max)) number = Number(value);
  else throw NOT_BINARY;
  if (!Number.isInteger(number) || number < min || number > max) throw NOT_BINARY;
  if (bytes === 2) out.int16Field(number);
  else out.int32Field(number);
}

function field(out: ChunkWriter, kind: ColumnKind, value: unknown): void {
  if (value === null || value === undefined) {
    out.int32(-1);
    return;
  }
  switch (kind) {
    case 'text':
      if (typeof value !== 'string') throw NOT_BINARY;
      out.textField(value);
      return;
    case 'int8':
      if (typeof value === 'number') {
        if (!Number.isSafeInteger(value)) throw NOT_BINARY;
        out.int64Field(value);
      } else if (typeof value === 'bigint' && value >= INT8_MIN && value <= INT8_MAX) {
        out.room(12);
        out.at = word(out.buffer, out.at, 8);
        out.at = out.buffer.writeBigInt64BE(value, out.at);
      } else throw NOT_BINARY;
      return;
    case 'int4':
      integer(out, value, 4, -2_147_483_648, 2_147_483_647);
      return;
    case 'int2':
      integer(out, value, 2, -32_768, 32_767);
      return;
    case 'float8':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw NOT_BINARY;
      out.room(12);
      out.at = word(out.buffer, out.at, 8);
      // -0 as 0: the text format writes String(-0), "0", and so does pg for a parameter.
      out.at = out.buffer.writeDoubleBE(value === 0 ? 0 : value, out.at);
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw NOT_BINARY;
      out.room(5);
      out.at = word(out.buffer, out.at, 1);
      out.buffer[out.at++] = value ? 1 : 0;
      return;
    case 'jsonb': {
      // As the text format: a string is the JSON text itself, an object or array is written as its JSON.
      const json = typeof value === 'string' ? value : typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : null;
      if (json === null) throw NOT_BINARY;
      out.textField(json, 1);
      return;
    }
    case 'uuid':
      if (typeof value !== 'string') throw NOT_BINARY;
      out.uuidField(value);
      return;
    case 'timestamptz': {
      const ms = value instanceof Date ? value.getTime() : Number.NaN;
      if (!Number.isFinite(ms)) throw NOT_BINARY;
      // Whole milliseconds (what toISOString writes) as microseconds since 2000-01-01, exact within ±285 years of it.
      const micros = (ms - POSTGRES_EPOCH_MS) * 1000;
      if (!Number.isSafeInteger(micros)) throw NOT_BINARY;
      out.int64Field(micros);
      return;
    }
  }
}

/**
 * `rows` (each `kinds.length` values, in column order) as COPY binary chunks, or null when a value is not one the
 * binary encoding takes (the caller then writes the batch as text). Throws on a row of the wrong width.
 */
export function binaryRows(rows: readonly unknown[][], kinds: readonly ColumnKind[]): Buffer[] | null {
  const width = kinds.length;
  const out = new ChunkWriter();
  out.room(COPY_BINARY_SIGNATURE.length + 8);
  out.at += COPY_BINARY_SIGNATURE.copy(out.buffer, out.at);
  out.at = word(out.buffer, out.at, 0); // flags
  out.at = word(out.buffer, out.at, 0); // header extension length
  try {
    for (const row of rows) {
      if (row.length !== width) throw new TypeError(`COPY: a row of ${row.length} values for ${width} columns`);
      out.int16(width);
      for (let i = 0; i < width; i++) field(out, kinds[i], row[i]);
    }
  } catch (error) {
    if (error === NOT_BINARY) return null;
    throw error;
  }
  return out.end();
}
