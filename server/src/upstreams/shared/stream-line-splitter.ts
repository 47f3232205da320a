/** Receives one line without its `\n` / `\r\n`, as a view into `buffer` valid only during the call. */
export type LineHandler = (buffer: Buffer, start: number, end: number) => void;

export function asBuffer(chunk: Uint8Array): Buffer {
  return Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}

/**
 * Splits upstream bytes into lines without decoding them. Splitting on byte 0x0A is safe for UTF-8 (no
 * multi-byte sequence contains it), so lines are decoded only if a reader needs their text. Only the
 * unterminated tail is kept between chunks, as pieces, so a long line arriving in small chunks costs one
 * concatenation rather than one per chunk; the tail is bounded by `maxLineBytes`.
 */
export class StreamLineSplitter {
  private pending: Buffer[] = [];
  private pendingLength = 0;

  constructor(private readonly maxLineBytes: number) {}

  /** Returns false when a line is longer than `maxLineBytes`; the caller should stop reading. */
  push(chunk: Uint8Array, onLine: LineHandler): boolean {
    const buffer = asBuffer(chunk);
    let start = 0;
    let newline = buffer.indexOf(10);
    if (this.pendingLength > 0) {
      if (newline === -1) return this.keep(buffer, 0);
      this.pending.push(buffer.subarray(0, newline));
      const line = Buffer.concat(this.pending, this.pendingLength + newline);
      this.pending = [];
      this.pendingLength = 0;
      if (line.length > this.maxLineBytes) return false;
      emit(line, 0, line.length, onLine);
      start = newline + 1;
      newline = buffer.indexOf(10, start);
    }
    while (newline !== -1) {
      if (newline - start > this.maxLineBytes) return false;
      emit(buffer, start, newline, onLine);
      start = newline + 1;
      newline = buffer.indexOf(10, start);
    }
    return start < buffer.length ? this.keep(buffer, start) : true;
  }

  /** Emits an unterminated last line (a body that ends without a newline). */
  flush(onLine: LineHandler): void {
    if (this.pendingLength === 0) return;
    const line = Buffer.concat(this.pending, this.pendingLength);
    this.pending = [];
    this.pendingLength = 0;
    emit(line, 0, line.length, onLine);
  }

  private keep(buffer: Buffer, start: number): boolean {
    this.pendingLength += buffer.length - start;
    if (this.pendingLength > this.maxLineBytes) return false;
    // A copy: the caller may reuse its chunk buffer once push returns.
    this.pending.push(Buffer.from(buffer.subarray(start)));
    return true;
  }
}

function emit(buffer: Buffer, start: number, end: number, onLine: LineHandler): void {
  onLine(buffer, start, end > start && buffer[end - 1] === 13 ? end - 1 : end);
}
