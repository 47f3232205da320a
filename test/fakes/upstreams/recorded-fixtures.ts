import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const FIXTURES = join(__dirname, '..', '..', '..', 'server', 'src', 'upstreams');

/** A provider's recorded answer, as the adapter specs read it: server/src/upstreams/<folder>/__fixtures__/<name>. */
export function upstreamFixture(folder: string, name: string): string {
  return readFileSync(join(FIXTURES, folder, '__fixtures__', name), 'utf8');
}
