import { closeSync, fdatasyncSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { eventJson } from '../../ledger/event-json';
import type { NewEvent } from '../../ledger/event-store.port';

/**
 * What admission must do once a charge is in the ledger: move the amount from the reservation that admitted the
 * request (its own, or the process's quota block) into the settled set at the event's position.
 */
export interface ChargeSettlement {
  requestId: string;
  userId: number;
  /** The token whose quota was reserved (null: unlimited token, playground). */
  tokenId: number | null;
  /** The charge (QuotaConsumed.quota). */
  amount: number;
  /** Admission's reservation id: the request id, or the id of the quota block the request was admitted from. */
  reservation: string;
  /** 'request': a reservation of this request alone; 'block': a share of a quota block. */
  kind: 'request' | 'block';
}

/** One charge as the journal holds it: the ledger append to make, and what admission does after it. */
export interface ChargeRecord {
  streamId: string;
  event: NewEvent;
  settlement: ChargeSettlement;
}

export interface SegmentHeader {
  journal: 1;
  owner: string;
  /** The installation the charges belong to: only a process of the same one may ship them. */
  installation: string;
}

interface Segment {
  seq: number;
  file: string;
  fd: number | null;
  bytes: number;
  /** Charges written to it and not yet in the ledger. */
  pending: number;
  sealed: boolean;
}

/** A charge's place in the journal, handed back when it reached the ledger. */
export interface JournalTicket {
  readonly segment: Segment;
}

export interface ChargeJournalOptions {
  /** Folder of this installation's journal (DATA_DIR/journal/<database>). */
  dir: string;
  /** This process's owner id (its liveness is a Postgres advisory lock, see JournalOwnerLock). */
  owner: string;
  installation: string;
  /** fdatasync after every write: survives a machine crash too, at the disk's flush latency per charge. */
  fsync: boolean;
  /** A segment is sealed past this size; a sealed segment is deleted once all its charges are in the ledger. */
  segmentBytes?: number;
}

const SEGMENT_FILE = /^charges-([0-9a-f]{8})-(\d+)\.wal$/;

export function segmentFileName(owner: string, seq: number): string {
  return `charges-${owner}-${String(seq).padStart(6, '0')}.wal`;
}

/**
 * The relay's charge journal: a local append-only file written before a relayed answer is finished, so a charge
 * survives the gateway process dying between the answer and its ledger append (the append is asynchronous, group
 * committed, see RelaySettlementService). One line of JSON per charge; a segment starts with a header line naming
 * its owner and installation. Written with a plain write(2) (the page cache holds it when the process dies) and,
 * with `fsync`, flushed to disk before the answer ends.
 *
 * A segment is deleted once every charge in it is in the ledger, so in steady state the journal holds only the
 * charges of the last moments. What a dead process left behind is shipped by another process of the same
 * installation (recoverOrphans in RelaySettlementService); its event ids make a charge that did reach the ledger a
 * no-op the second time.
 */
export class ChargeJournal {
  private current: Segment | null = null;
  /** The lines queued in this turn, and the one promise all their writers wait on (they share a write and a ticket). */
  private queue: string[] = [];
  private turn: { written: Promise<JournalTicket>; resolve(ticket: JournalTicket): void; reject(error: unknown): void } | null = null;
  private readonly segments = new Set<Segment>();
  private seq = 0;
  private readonly segmentBytes: number;

  constructor(private readonly options: ChargeJournalOptions) {
    this.segmentBytes = options.segmentBytes ?? 8 * 1024 * 1024;
    mkdirSync(options.dir, { recursive: true });
  }

  get dir(): string {
    return this.options.dir;
  }

  /** Charges written and not yet in the ledger. */
  get pending(): number {
    let total = 0;
    for (const segment of this.segments) total += segment.pending;
    return total;
  }

  /** Writes one charge now; when this returns, the charge outlives this process. Throws if the write failed. */
  append(record: ChargeRecord): JournalTicket {
    return this.writeLines([recordLine(record)]);
  }

  /**
   * Queues one charge; the promise resolves once it is written (and flushed to disk with `fsync`), rejects if the
   * write failed. Every charge queued in one turn of the event loop goes out in one write: under load the answers
   * that end together share a write(2) (and an fdatasync) instead of paying one each; alone, a charge waits only
   * for the end of the current turn.
   */
  write(record: ChargeRecord): Promise<JournalTicket> {
    this.queue.push(recordLine(record));
    if (this.turn === null) {
      let resolve!: (ticket: JournalTicket) => void;
      let reject!: (error: unknown) => void;
      const written = new Promise<JournalTicket>((done, fail) => {
        resolve = done;
        reject = fail;
      });
      this.turn = { written, resolve, reject };
      setImmediate(() => this.flush());
    }
    // One promise per turn, not per charge: the turn's charges share one write, so they share its outcome and ticket.
    return this.turn.written;
  }

  /** Writes what is queued (the turn's end; close). */
  flush(): void {
    const turn = this.turn;
    const lines = this.queue;
    this.turn = null;
    if (lines.length === 0) return;
    this.queue = [];
    let ticket: JournalTicket;
    try {
      ticket = this.writeLines(lines);
    } catch (error) {
      turn?.reject(error);
      return;
    }
    turn?.resolve(ticket);
  }

  private writeLines(lines: string[]): JournalTicket {
    const segment = this.writable();
    const bytes = encodeLines(lines);
    try {
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(segment.fd!, bytes, offset, bytes.length - offset);
      if (this.options.fsync) fdatasyncSync(segment.fd!);
    } catch (error) {
      // Part of the lines may be on disk: nothing more is written after them, so at most the segment's last line is
      // torn, which readSegment skips (its answer never ended). The next write opens a new segment.
      this.seal(segment);
      this.collect(segment);
      throw error;
    }
    segment.bytes += bytes.length;
    segment.pending += lines.length;
    return { segment };
  }

  /** The charge is in the ledger (and admission was told): its segment may go once nothing in it is pending. */
  done(ticket: JournalTicket): void {
    const segment = ticket.segment;
    segment.pending--;
    this.collect(segment);
  }

  /** Seals the open segment and deletes every segment whose charges are all in the ledger. */
  close(): void {
    this.flush();
    for (const segment of [...this.segments]) {
      this.seal(segment);
      this.collect(segment);
    }
    this.current = null;
  }

  private writable(): Segment {
    const open = this.current;
    if (open && !open.sealed && open.bytes < this.segmentBytes) return open;
    if (open) {
      this.seal(open);
      this.collect(open);
    }
    const seq = ++this.seq;
    const file = join(this.options.dir, segmentFileName(this.options.owner, seq));
    const fd = openSync(file, 'a');
    const header: SegmentHeader = { journal: 1, owner: this.options.owner, installation: this.options.installation };
    const bytes = writeSync(fd, `${JSON.stringify(header)}\n`);
    const segment: Segment = { seq, file, fd, bytes, pending: 0, sealed: false };
    this.segments.add(segment);
    this.current = segment;
    return segment;
  }

  private seal(segment: Segment): void {
    if (segment.sealed) return;
    segment.sealed = true;
    if (segment.fd !== null) closeSync(segment.fd);
    segment.fd = null;
    if (this.current === segment) this.current = null;
  }

  private collect(segment: Segment): void {
    if (segment.pending > 0) return;
    if (!segment.sealed) {
      // The open segment is emptied only when it is also large: a quiet process keeps one small file open.
      if (segment.bytes < this.segmentBytes) return;
      this.seal(segment);
    }
    this.segments.delete(segment);
    try {
      unlinkSync(segment.file);
    } catch {
      // already gone (recovered by another process after a false orphan verdict): nothing left to do
    }
  }
}

/** A segment's header line (null: none complete yet), read with one small read. */
export function readSegmentHeader(file: string): SegmentHeader | null {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(4096);
    const length = readSync(fd, buffer, 0, buffer.length, 0);
    const end = buffer.subarray(0, length).indexOf(10);
    return end < 0 ? null : (JSON.parse(buffer.toString('utf8', 0, end)) as SegmentHeader);
  } finally {
    closeSync(fd);
  }
}

/** Reused by every write (the write is synchronous): a turn's lines are encoded into it one after the other. */
const SCRATCH_BYTES = 512 * 1024;
let scratch: Buffer | null = null;

/**
 * The lines' UTF-8 bytes. A turn's lines (up to SCRATCH_BYTES / 3 characters) are encoded straight into one reused
 * buffer, rather than joined into one more string and copied into a new Buffer of their own: under load that was a
 * ~70 kB string and a ~70 kB allocation per turn (docs/benchmark.md, 2026-11-25). Valid until the next call.
 */
export function encodeLines(lines: readonly string[]): Buffer {
  let bound = 0;
  for (const line of lines) bound += line.length * 3; // a UTF-16 unit is at most 3 UTF-8 bytes
  if (bound > SCRATCH_BYTES) return Buffer.from(lines.join(''), 'utf8');
  scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES);
  let offset = 0;
  for (const line of lines) offset += scratch.write(line, offset, 'utf8');
  return scratch.subarray(0, offset);
}

/** One journal line: the event's JSON is shared with the ledger append (eventJson), serialised once. */
function recordLine(record: ChargeRecord): string {
  return `{"s":${JSON.stringify(record.streamId)},"e":${eventJson(record.event)},"a":${JSON.stringify(record.settlement)}}\n`;
}

/** A dead process's segments, by owner, oldest first. */
export function orphanSegments(dir: string, liveOwner: string): Map<string, string[]> {
  const byOwner = new Map<string, string[]>();
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return byOwner;
  }
  for (const name of names.sort()) {
    const match = SEGMENT_FILE.exec(name);
    if (!match || match[1] === liveOwner) continue;
    byOwner.set(match[1], [...(byOwner.get(match[1]) ?? []), join(dir, name)]);
  }
  return byOwner;
}

/**
 * The charges of one segment. A last line without its newline is a write the process died in the middle of: its
 * answer was never finished (the answer waits for the write), so it is skipped. Returns null when the segment
 * belongs to another installation (same folder shared by mistake) and must not be shipped here.
 */
export function readSegment(file: string, installation: string): ChargeRecord[] | null {
  // The header first, alone: a segment of another installation is not read further (it may be megabytes).
  const header = readSegmentHeader(file);
  if (header !== null && (header.journal !== 1 || header.installation !== installation)) return null;
  const text = readFileSync(file, 'utf8');
  // Split on newlines and drop the last piece: '' after a final newline, or the unfinished line.
  const [first, ...rest] = text.split('\n').slice(0, -1);
  if (first === undefined) return [];
  const parsedHeader = JSON.parse(first) as SegmentHeader;
  if (parsedHeader.journal !== 1 || parsedHeader.installation !== installation) return null;
  const records: ChargeRecord[] = [];
  for (const line of rest) {
    if (line === '') continue;
    const parsed = JSON.parse(line) as { s: string; e: NewEvent; a: ChargeSettlement };
    records.push({ streamId: parsed.s, event: parsed.e, settlement: parsed.a });
  }
  return records;
}
