/**
 * Byte-level reads of a few keys in JSON the gateway forwards without parsing (OpenAI-compatible bodies
 * and stream lines). They rely on one JSON property: inside a string value a quote is always escaped, so an
 * unescaped `"usage"` followed by a colon can only be a key. findKeyValue searches for one key; forEachKey walks
 * every key of an event once (the stream transformer, which needs several per event). Callers fall back to
 * JSON.parse for anything they need beyond a key's raw value.
 */

const QUOTE = 34;
const BACKSLASH = 92;

function isSpace(byte: number): boolean {
  return byte === 32 || byte === 10 || byte === 13 || byte === 9;
}

/**
 * `key` includes its quotes (`"usage"`). Returns the index of the value's first byte, or -1. Only [start, end) is
 * searched: a stream chunk can hold hundreds of events, and a search that ran on to the end of the chunk (or back to
 * its start) for every event and key would make reading a chunk quadratic in its size.
 */
export function findKeyValue(buffer: Buffer, key: Buffer, start: number, end: number, fromEnd = false): number {
  const length = end - start;
  if (length < key.length) return -1;
  const view = start === 0 && end === buffer.length ? buffer : buffer.subarray(start, end);
  let at = fromEnd ? view.lastIndexOf(key, length - key.length) : view.indexOf(key);
  while (at !== -1) {
    let i = start + at + key.length;
    while (i < end && isSpace(buffer[i])) i++;
    if (i < end && buffer[i] === 58 /* : */) {
      i++;
      while (i < end && isSpace(buffer[i])) i++;
      if (i < end) return i;
    }
    at = fromEnd ? (at === 0 ? -1 : view.lastIndexOf(key, at - 1)) : view.indexOf(key, at + 1);
  }
  return -1;
}

/**
 * One pass over the JSON between start and end that calls `onKey(keyStart, keyEnd, valueAt)` for every key, at
 * any depth, in order: [keyStart, keyEnd) are the key's bytes inside its quotes and `valueAt` the value's first
 * byte. A string is a key when a colon follows it; strings are skipped whole, escapes included, so a quote inside
 * one is never taken for a key. A stream transformer asks for several keys per event: one pass does it for all of
 * them, where a search per key costs a native call each (and stops at an unterminated string the same way).
 */
export function forEachKey(
  buffer: Buffer,
  start: number,
  end: number,
  onKey: (keyStart: number, keyEnd: number, valueAt: number) => void,
): void {
  let i = start;
  while (i < end) {
    if (buffer[i] !== QUOTE) {
      i++;
      continue;
    }
    const open = i + 1;
    i = open;
    while (i < end) {
      const byte = buffer[i];
      if (byte === BACKSLASH) i += 2;
      else if (byte === QUOTE) break;
      else i++;
    }
    if (i >= end) return;
    const close = i;
    i++;
    let value = i;
    while (value < end && isSpace(buffer[value])) value++;
    if (value < end && buffer[value] === 58 /* : */) {
      value++;
      while (value < end && isSpace(buffer[value])) value++;
      if (value < end) onKey(open, close, value);
      i = value;
    }
  }
}

/** True if buffer[at, at + length) holds exactly the bytes of `name`. */
export function bytesEqual(buffer: Buffer, at: number, length: number, name: Buffer): boolean {
  if (length !== name.length) return false;
  for (let k = 0; k < length; k++) if (buffer[at + k] !== name[k]) return false;
  return true;
}

/**
 * The string value whose opening quote is at `at`, decoded; null if `at` is not a quote or the string does not
 * close before `end`.
 */
export function stringValueAt(buffer: Buffer, at: number, end: number): string | null {
  if (buffer[at] !== QUOTE) return null;
  const found = stringEnd(buffer, at + 1, end);
  if (!found) return null;
  return found.escaped
    ? (JSON.parse(buffer.toString('utf8', at, found.close + 1)) as string)
    : buffer.toString('utf8', at + 1, found.close);
}

/**
 * Hands `sink` the string values whose first bytes are at `positions` (as forEachKey reported them), in order:
 * other values (null, numbers, objects) are skipped, and a string that does not close before `end` ends the list.
 */
export function forEachStringAt(buffer: Buffer, positions: readonly number[], end: number, sink: (value: string) => void): void {
  for (const at of positions) {
    if (buffer[at] !== QUOTE) continue;
    const value = stringValueAt(buffer, at, end);
    if (value === null) return;
    sink(value);
  }
}

/** Index just past the object or array that opens at `start`, or -1 if it does not close before `end`. */
export function compositeEnd(buffer: Buffer, start: number, end: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < end; i++) {
    const byte = buffer[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === 123 || byte === 91) depth++;
    else if (byte === 125 || byte === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Index of the closing quote of the string whose opening quote is at `start - 1`, or -1. */
function stringEnd(buffer: Buffer, start: number, end: number): { close: number; escaped: boolean } | null {
  let escaped = false;
  for (let i = start; i < end; i++) {
    const byte = buffer[i];
    if (byte === BACKSLASH) {
      escaped = true;
      i++;
    } else if (byte === QUOTE) return { close: i, escaped };
  }
  return null;
}

/** The parsed object value of the last `key` in the buffer, or undefined (absent, null, not an object). */
export function lastObjectValue(buffer: Buffer, key: Buffer, start = 0, end = buffer.length): unknown {
  const value = findKeyValue(buffer, key, start, end, true);
  if (value === -1 || buffer[value] !== 123) return undefined;
  const close = compositeEnd(buffer, value, end);
  if (close === -1) return undefined;
  try {
    return JSON.parse(buffer.toString('utf8', value, close));
  } catch {
    return undefined;
  }
}
