import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '#test/support/app';
import { segmentFileName } from './charge-journal';
import { journalDirectory } from './charge-durability';
import { RelaySettlementService } from './relay-settlement.service';

// The module object the settlement reads through (an `import * as` namespace would be a copy).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const fs = require('node:fs') as typeof import('node:fs');

/**
 * A journal folder shared by mistake with another installation: that installation's segments are never shipped
 * here, and once seen they are not read again by later sweeps (recovery runs on every lease sweep, every few
 * seconds; re-reading megabytes each time cost the gateway CPU and memory).
 */
describe("charge journal recovery and another installation's segments", () => {
  let target: TestApp;

  beforeAll(async () => {
    target = await createTestApp({ roles: ['api', 'worker'] });
  });
  afterAll(async () => {
    await target?.close();
  });

  it('leaves them alone, says so once, and does not read them again', async () => {
    const settlement = target.app.get(RelaySettlementService, { strict: false });
    await settlement.recoverOrphans();
    const dir = journalDirectory(target.config);
    mkdirSync(dir, { recursive: true });
    const file = join(dir, segmentFileName('0badf00d', 1));
    const header = JSON.stringify({ journal: 1, owner: '0badf00d', installation: 'some-other-db:5432/elsewhere#prefix' });
    const line = JSON.stringify({
      s: 'account-1',
      e: { id: '00000000-0000-5000-8000-000000000001', type: 'QuotaConsumed', data: {}, metadata: {} },
      a: {},
    });
    writeFileSync(file, `${header}\n${`${line}\n`.repeat(1000)}`);

    const reads = jest.spyOn(fs, 'readFileSync');
    const opens = jest.spyOn(fs, 'openSync');
    try {
      expect(await settlement.recoverOrphans()).toBe(0);
      const headerReads = opens.mock.calls.filter(([path]) => path === file).length;
      expect(headerReads).toBe(1);
      expect(await settlement.recoverOrphans()).toBe(0);
      expect(await settlement.recoverOrphans()).toBe(0);
      expect(opens.mock.calls.filter(([path]) => path === file)).toHaveLength(1);
      expect(reads.mock.calls.filter(([path]) => path === file)).toHaveLength(0);
    } finally {
      reads.mockRestore();
      opens.mockRestore();
    }
    expect(fs.existsSync(file)).toBe(true);
    fs.unlinkSync(file);
  });
});
