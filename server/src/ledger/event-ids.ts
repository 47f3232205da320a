import { createHash, hash, randomFillSync } from 'node:crypto';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Root namespace of every Tollgate event id (a random v4 UUID, fixed forever: changing it changes every id). */
export const TOLLGATE_EVENT_NAMESPACE = '5b8f1c1e-3f0a-4c52-9a57-2e6f7d3c9b41';

export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** A namespace UUID's 16 bytes, parsed once (ids are derived on the relay's hot path). */
const namespaceBytes = new Map<string, Buffer>();

function bytesOf(namespace: string): Buffer {
  let bytes = namespaceBytes.get(namespace);
  if (!bytes) {
    if (!isUuid(namespace)) throw new TypeError(`uuidV5: namespace must be a UUID, got "${namespace}"`);
    bytes = Buffer.from(namespace.replace(/-/g, ''), 'hex');
    if (namespaceBytes.size < 1024) namespaceBytes.set(namespace, bytes);
  }
  return bytes;
}

/** Random bytes for uuidV7, filled 256 ids at a time from the CSPRNG (as randomUUID batches its own entropy). */
const V7_POOL_IDS = 256;
const v7Pool = Buffer.allocUnsafe(16 * V7_POOL_IDS);
let v7Next = V7_POOL_IDS;
/** The id's 36 ASCII characters, written in place and read out as one flat one-byte string. */
const v7Text = Buffer.alloc(36, 0x2d);
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1');

/** Writes byte `value` as two hex digits at `at`. */
function hexByte(value: number, at: number): void {
  v7Text[at] = HEX_DIGITS[value >>> 4];
  v7Text[at + 1] = HEX_DIGITS[value & 15];
}

/**
 * RFC 9562 UUID version 7: the Unix time in milliseconds in the first 48 bits, then 74 random bits (from a pool the
 * CSPRNG fills 256 ids at a time, as randomUUID batches its own entropy). The relay's request ids are v7: a relay
 * charge's event id is its request id (quotaConsumedEventId), and ids that grow with time append to the right edge of
 * the `events_event_id_key` index, which then stays ~90 % full (random v4 ids leave it ~70 % full: 44 instead of 32
 * bytes per charge, measured on 50,000 ids) and touches a few hot pages instead of random ones. Written as ASCII into
 * one reused buffer and read out once: one string per id, where slicing and joining a randomUUID made seven (0.7 →
 * 0.2 µs per id; docs/benchmark.md, 2026-11-26). One id per request, on the relay's hot path.
 */
export function uuidV7(now: number = Date.now()): string {
  if (v7Next === V7_POOL_IDS) {
    randomFillSync(v7Pool);
    v7Next = 0;
  }
  const random = v7Next++ * 16;
  const ms = Math.max(0, Math.floor(now)) % 2 ** 48;
  const high = Math.floor(ms / 0x1000000); // the first 24 bits of the 48
  const low = ms % 0x1000000;
  hexByte(high >>> 16, 0);
  hexByte((high >>> 8) & 255, 2);
  hexByte(high & 255, 4);
  hexByte(low >>> 16, 6);
  hexByte((low >>> 8) & 255, 9);
  hexByte(low & 255, 11);
  hexByte(0x70 | (v7Pool[random + 6] & 0x0f), 14); // version 7
  hexByte(v7Pool[random + 7], 16);
  hexByte(0x80 | (v7Pool[random + 8] & 0x3f), 19); // RFC 9562 variant
  hexByte(v7Pool[random + 9], 21);
  for (let index = 10, at = 24; index < 16; index++, at += 2) hexByte(v7Pool[random + index], at);
  return v7Text.toString('latin1', 0, 36);
}

/** Namespace and name side by side for the one-shot hash: names up to this many UTF-8 bytes need no allocation. */
const SCRATCH_NAME_BYTES = 240;
const scratch = Buffer.allocUnsafe(16 + SCRATCH_NAME_BYTES);

/**
 * RFC 4122 §4.3 name-based UUID, version 5 (SHA-1), behind every derived event id (a relay charge whose request id
 * is not a UUID, task events, outcomes…). `crypto.hash` hashes the namespace and the name in one call over a reused
 * buffer, where a `createHash` object, its two updates and its
 * digest cost about twice as much (docs/benchmark.md, 2026-11-25). Longer names take the streaming hash.
 */
export function uuidV5(namespace: string, name: string): string {
  const namespaceBytes = bytesOf(namespace);
  let bytes: Buffer;
  if (name.length * 3 <= SCRATCH_NAME_BYTES) {
    namespaceBytes.copy(scratch, 0);
    const length = scratch.write(name, 16, 'utf8');
    bytes = hash('sha1', scratch.subarray(0, 16 + length), 'buffer') as unknown as Buffer;
  } else {
    bytes = createHash('sha1').update(namespaceBytes).update(name, 'utf8').digest();
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The id of an event derived from what caused it, so a retried command produces the same id and its append is a
 * no-op instead of a second charge. `namespace` names the kind of cause (`relay-request`, `topup-paid`,
 * `redemption`, or a UUID), `key` identifies one occurrence (request id, trade number…).
 * e.g. `deterministicEventId('relay-request', requestId)`.
 */
export function deterministicEventId(namespace: string, key: string): string {
  if (!namespace) throw new TypeError('deterministicEventId: namespace is required');
  let namespaceId = namespaceIds.get(namespace);
  if (namespaceId === undefined) {
    namespaceId = isUuid(namespace) ? namespace.toLowerCase() : uuidV5(TOLLGATE_EVENT_NAMESPACE, namespace);
    if (namespaceIds.size < 1024) namespaceIds.set(namespace, namespaceId);
  }
  return uuidV5(namespaceId, key);
}

/** Namespace names to their UUIDs (a handful of kinds of cause; one SHA-1 saved per id). */
const namespaceIds = new Map<string, string>();
