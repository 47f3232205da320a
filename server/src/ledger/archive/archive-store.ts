import { createReadStream } from 'node:fs';
import { mkdir, open, readFile, rename, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * Where the ledger archive's files live (docs/ledger.md, "Archival and snapshots", "Object stores"): the monthly
 * segments and `manifest.json` of one installation, by name. A local folder (a mounted bucket is one) or an S3
 * bucket's prefix (s3-archive-store.ts). Files are written whole, once (a rerun after a crash writes the same name
 * again with the same bytes), and read sequentially; nothing is ever appended to or rewritten in place.
 */
export interface ArchiveStore {
  /** The folder or `s3://bucket/prefix`, for messages. */
  readonly location: string;
  /** Ready to take files: a folder is created; a bucket is checked to exist and to take these credentials. */
  prepare(): Promise<void>;
  /**
   * A local path to write a file to before `putFile` stores it under `name`: in the archive folder itself for a
   * folder (the rename is then atomic), in a staging folder for an object store.
   */
  stagingPath(name: string): string;
  /** Stores the file written at `stagingPath(name)` as `name`, whole or not at all, durably; the staged file is gone after. */
  putFile(name: string, staged: string): Promise<void>;
  /** Stores `text` as `name`, whole or not at all, durably. */
  putText(name: string, text: string): Promise<void>;
  /** The bytes of `name`, or null when there is no such file. */
  read(name: string): Promise<Buffer | null>;
  /** The size of `name` in bytes, or null when there is no such file. */
  size(name: string): Promise<number | null>;
  /** The bytes of `name` as a stream (the stream fails when there is no such file). */
  openRead(name: string): Promise<Readable>;
  /** A staged file that will not be stored (a failed write): removed, quietly. */
  discard(staged: string): Promise<void>;
  /** Lets go of what the store holds open (an object store's connections); a folder holds nothing. */
  close(): void;
}

/** The archive store a caller gave: a folder's path is a LocalArchiveStore. */
export type ArchiveLocation = ArchiveStore | string;

export function archiveStoreOf(location: ArchiveLocation): ArchiveStore {
  return typeof location === 'string' ? new LocalArchiveStore(location) : location;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException)?.code === 'ENOENT';

/** A folder of the local file system: a file is written beside its name, fsynced, renamed into place, the folder fsynced. */
export class LocalArchiveStore implements ArchiveStore {
  constructor(readonly location: string) {}

  async prepare(): Promise<void> {
    await mkdir(this.location, { recursive: true });
  }

  stagingPath(name: string): string {
    return `${join(this.location, name)}.tmp-${process.pid}`;
  }

  async putFile(name: string, staged: string): Promise<void> {
    await fsyncPath(staged);
    await rename(staged, join(this.location, name)).catch(async (error: unknown) => {
      await this.discard(staged);
      throw error;
    });
    await fsyncPath(this.location);
  }

  async putText(name: string, text: string): Promise<void> {
    const staged = this.stagingPath(name);
    await writeFile(staged, text);
    await this.putFile(name, staged);
  }

  async read(name: string): Promise<Buffer | null> {
    return readFile(join(this.location, name)).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw error;
    });
  }

  async size(name: string): Promise<number | null> {
    return stat(join(this.location, name)).then(
      (stats) => stats.size,
      (error: unknown) => {
        if (isMissing(error)) return null;
        throw error;
      },
    );
  }

  async openRead(name: string): Promise<Readable> {
    return createReadStream(join(this.location, name));
  }

  async discard(staged: string): Promise<void> {
    await unlink(staged).catch(() => undefined);
  }

  close(): void {
    // nothing held open between calls
  }
}

async function fsyncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
