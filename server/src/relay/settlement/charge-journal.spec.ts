import { appendFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChargeRecord, ChargeJournal, orphanSegments, readSegment, segmentFileName } from './charge-journal';

function record(requestId: string, quota = 10): ChargeRecord {
  return {
    streamId: 'account-7',
    event: {
      id: `00000000-0000-5000-8000-${requestId.padStart(12, '0')}`,
      type: 'QuotaConsumed',
      data: { requestId, quota },
      metadata: { correlationId: requestId, causationId: null, actor: { type: 'system' }, clientIp: null, reasonCode: 'relay_request', schemaVersion: 1 },
    },
    settlement: { requestId, userId: 7, tokenId: 3, amount: quota, reservation: 'blk:0000abcd:1', kind: 'block' },
  };
}

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
    for (const [owner, seq] of [['0000abcd', 1], ['11112222', 2], ['11112222', 1], ['33334444', 1]] as const) {
      appendFileSync(join(dir, segmentFileName(owner, seq)), '');
    }
    appendFileSync(join(dir, 'unrelated.txt'), '');
    const orphans = orphanSegments(dir, '0000abcd');
    expect([...orphans.keys()]).toEqual(['11112222', '33334444']);
    expect(orphans.get('11112222')).toEqual([join(dir, segmentFileName('11112222', 1)), join(dir, segmentFileName('11112222', 2))]);
  });
});
