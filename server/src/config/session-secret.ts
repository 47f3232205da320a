import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the generated session secret is kept, inside DATA_DIR. */
export const SESSION_SECRET_FILE = 'session-secret';

/**
 * The secret that signs session cookies when SESSION_SECRET is unset: read from DATA_DIR/session-secret, or generated
 * there once (32 random bytes as hex, mode 0600), so a restart keeps everyone signed in. `created` says which.
 */
export function resolveSessionSecret(dataDir: string): { secret: string; file: string; created: boolean } {
  return resolveGeneratedSecret(dataDir, SESSION_SECRET_FILE, 'SESSION_SECRET');
}

/**
 * DATA_DIR/`fileName`, generated there once (32 random bytes as hex, mode 0600) when missing; `variable` is the
 * environment variable that replaces the file, named in the error for an empty file. Shared by the session secret
 * and the data key of encryption at rest (common/crypto/secret-key.ts).
 */
export function resolveGeneratedSecret(
  dataDir: string,
  fileName: string,
  variable: string,
): { secret: string; file: string; created: boolean } {
  const file = join(dataDir, fileName);
  const existing = readSecret(file, variable);
  if (existing !== undefined) return { secret: existing, file, created: false };

  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(temporary, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  try {
    // A hard link appears whole and fails if the file exists, so two processes starting at once agree on one secret.
    linkSync(temporary, file);
    return { secret, file, created: true };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(temporary);
  }
  const winner = readSecret(file, variable);
  if (winner === undefined) throw new Error(`${file} vanished while it was being created`);
  return { secret: winner, file, created: false };
}

/** The file's secret; undefined when there is no file. An empty file is an error, not a reason to log everyone out. */
function readSecret(file: string, variable: string): string | undefined {
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = content.trim();
  if (secret === '') throw new Error(`${file} is empty: set ${variable}, or delete the file to generate a new one`);
  return secret;
}
