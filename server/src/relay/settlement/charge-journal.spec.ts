import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ChargeRecord,
  ChargeJournal,
  encodeLines,
  orphanSegments,
  readSegment,
  readSegmentHeader,
  segmentFileName,
} from './charge-journal';
import { journalDirectory } from './charge-durability';

// The module object itself (an `import * as` namespace would be a copy the journal does not call through).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

function record(requestId: string, quota = 10): ChargeRecord {
  return {
    streamId: 'account-7',
    event: {
      id: `00000000-0000-5000-8000-${requestId.padStart(12, '0')}`,
      type: 'QuotaConsumed',
      data: { requestId, quota },
      metadata: {
        correlationId: requestId,
        causationId: null,
        actor: { type: 'system' },
        clientIp: null,
        reasonCode: 'relay_request',
        schemaVersion: 1,
      },
    },
    settlement: { requestId, userId: 7, tokenId: 3, amount: quota, reservation: 'blk:0000abcd:1', kind: 'block' },
  };
}

describe('journalDirectory', () => {
  it('is DATA_DIR/journal/<database> unless RELAY_JOURNAL_DIR names another root (a tmpfs, say)', () => {
    const url = 'postgres://u@db:5432/tollgate%20prod';
    expect(journalDirectory({ DATA_DIR: '/srv/data', RELAY_JOURNAL_DIR: undefined, DATABASE_URL: url })).toBe(
      '/srv/data/journal/tollgate_prod',
    );
    expect(journalDirectory({ DATA_DIR: '/srv/data', RELAY_JOURNAL_DIR: '/dev/shm/tollgate', DATABASE_URL: url })).toBe(
      '/dev/shm/tollgate/tollgate_prod',
    );
    expect(journalDirectory({ DATA_DIR: '/srv/data', RELAY_JOURNAL_DIR: ' ', DATABASE_URL: 'not a url' })).toBe(
      '/srv/data/journal/tollgate',
    );
  });
});

describe('ChargeJournal', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tg-journal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes one line per charge after a header, and reads them back exactly', () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db#prefix', fsync: false });
    journal.append(record('1'));
    journal.append(record('2', 25));
    expect(journal.pending).toBe(2);
    const [file] = readdirSync(dir);
    expect(file).toBe(segmentFileName('0000abcd', 1));
    expect(readSegment(join(dir, file), 'db#prefix')).toEqual([record('1'), record('2', 25)]);
  });

  it('writes the charges queued in one turn with one write, resolving each once it is on disk', async () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db#prefix', fsync: true });
    const writes = jest.spyOn(fs, 'writeSync');
    const syncs = jest.spyOn(fs, 'fdatasyncSync');
    try {
      journal.append(record('0')); // opens the segment (header) outside the measured turn
      writes.mockClear();
      syncs.mockClear();
      const tickets = await Promise.all([journal.write(record('1')), journal.write(record('2', 25)), journal.write(record('3'))]);
      expect(writes).toHaveBeenCalledTimes(1);
      expect(syncs).toHaveBeenCalledTimes(1);
      expect(new Set(tickets).size).toBe(1);
      expect(journal.pending).toBe(4);
      const next = await journal.write(record('4'));
      expect(writes).toHaveBeenCalledTimes(2);
      expect(next.segment).toBe(tickets[0].segment);
    } finally {
      writes.mockRestore();
      syncs.mockRestore();
    }
    expect(readSegment(join(dir, segmentFileName('0000abcd', 1)), 'db#prefix')).toEqual(
      ['0', '1', '2', '3', '4'].map((id) => record(id, id === '2' ? 25 : 10)),
    );
  });

  it('rejects every charge of a failed write, and writes the next ones to a new segment', async () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db#prefix', fsync: false });
    journal.append(record('1'));
    const writes = jest.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
      throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    try {
      const failed = await Promise.allSettled([journal.write(record('2')), journal.write(record('3'))]);
      expect(failed.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
      expect(journal.pending).toBe(1);
      await journal.write(record('4'));
    } finally {
      writes.mockRestore();
    }
    expect(readdirSync(dir).sort()).toEqual([segmentFileName('0000abcd', 1), segmentFileName('0000abcd', 2)]);
    expect(readSegment(join(dir, segmentFileName('0000abcd', 1)), 'db#prefix')).toEqual([record('1')]);
    expect(readSegment(join(dir, segmentFileName('0000abcd', 2)), 'db#prefix')).toEqual([record('4')]);
  });

  it('writes what is queued when it is closed', async () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db#prefix', fsync: false });
    const queued = journal.write(record('1'));
    journal.close();
    await queued;
    expect(readSegment(join(dir, segmentFileName('0000abcd', 1)), 'db#prefix')).toEqual([record('1')]);
  });

  it('skips an unfinished last line (the process died inside the write; that answer never ended)', () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db#prefix', fsync: true });
    journal.append(record('1'));
    const file = join(dir, segmentFileName('0000abcd', 1));
    appendFileSync(file, '{"s":"account-7","e":{"id":"cut');
    expect(readSegment(file, 'db#prefix')).toEqual([record('1')]);
  });

  it('refuses to hand out the charges of another installation', () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db-a#prefix', fsync: false });
    journal.append(record('1'));
    expect(readSegment(join(dir, segmentFileName('0000abcd', 1)), 'db-b#prefix')).toBeNull();
  });

  it("reads only the header of another installation's segment (it is left alone, however large)", () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'db-a#prefix', fsync: false });
    for (let i = 1; i <= 200; i++) journal.append(record(String(i)));
    const file = join(dir, segmentFileName('0000abcd', 1));
    expect(readSegmentHeader(file)).toEqual({ journal: 1, owner: '0000abcd', installation: 'db-a#prefix' });
    const whole = jest.spyOn(fs, 'readFileSync');
    try {
      expect(readSegment(file, 'db-b#prefix')).toBeNull();
      expect(whole).not.toHaveBeenCalled();
      expect(readSegment(file, 'db-a#prefix')).toHaveLength(200);
      expect(whole).toHaveBeenCalledTimes(1);
    } finally {
      whole.mockRestore();
    }
  });

  it('deletes a sealed segment once every charge in it is in the ledger, and the open one on close', () => {
    const journal = new ChargeJournal({ dir, owner: '0000abcd', installation: 'i', fsync: false, segmentBytes: 300 });
    const tickets = [journal.append(record('1')), journal.append(record('2')), journal.append(record('3'))];
    // Each line is over 300 bytes with the header: every append after the first opened a new segment.
    expect(readdirSync(dir).length).toBe(3);
    journal.done(tickets[1]);
    expect(readdirSync(dir)).toEqual([segmentFileName('0000abcd', 1), segmentFileName('0000abcd', 3)]);
    journal.done(tickets[0]);
    expect(readdirSync(dir)).toEqual([segmentFileName('0000abcd', 3)]);
    journal.close(); // the open segment still has a pending charge: it stays for recovery
    expect(readdirSync(dir)).toEqual([segmentFileName('0000abcd', 3)]);
    expect(journal.pending).toBe(1);
  });

  it('lists the segments of other owners, oldest first, and never its own', () => {
    for (const [owner, seq] of [
      ['0000abcd', 1],
      ['11112222', 2],
      ['11112222', 1],
      ['33334444', 1],
    ] as const) {
      appendFileSync(join(dir, segmentFileName(owner, seq)), '');
    }
    appendFileSync(join(dir, 'unrelated.txt'), '');
    const orphans = orphanSegments(dir, '0000abcd');
    expect([...orphans.keys()]).toEqual(['11112222', '33334444']);
    expect(orphans.get('11112222')).toEqual([join(dir, segmentFileName('11112222', 1)), join(dir, segmentFileName('11112222', 2))]);
  });

  it('encodes a turn of lines as their UTF-8 bytes, in the reused buffer or, past its size, on their own', () => {
    const cases: string[][] = [
      [],
      ['{"a":1}\n'],
      ['{"user":"张三","emoji":"😀"}\n', '{"b":2}\n', `${'é'.repeat(1000)}\n`],
      Array.from({ length: 300 }, (_, index) => `{"n":${index},"name":"${'渠道'.repeat(index % 7)}"}\n`),
      [`${'x'.repeat(200_000)}\n`, `${'名'.repeat(10_000)}\n`], // over the buffer's bound: encoded apart
    ];
    for (const lines of cases) {
      const expected = Buffer.from(lines.join(''), 'utf8');
      expect(Buffer.compare(encodeLines(lines), expected)).toBe(0);
    }
    // The reused buffer holds only the last call's bytes: a shorter turn after a longer one is exactly its own.
    encodeLines(['a'.repeat(5000)]);
    expect(encodeLines(['{"short":true}\n']).toString('utf8')).toBe('{"short":true}\n');
  });
});
