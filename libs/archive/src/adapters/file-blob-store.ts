import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { BlobTooLarge, checkBlobId, type ArchiveBlobStore } from '../blob-store.port';

/**
 * Embedded adapter: one file per blob under `<dir>/<last two characters of the id>/<id>` (256-way
 * fan-out keeps directories small). A blob is written to a temporary name and renamed, so a reader
 * never sees half a blob and a crash leaves at most a `.part` file, which the next write of that id
 * replaces.
 */
export class FileBlobStore implements ArchiveBlobStore {
  readonly kind = 'files' as const;

  /** Fan-out directories made (or found) by this process: each is made once, not before every write. */
  private readonly made = new Set<string>();

  constructor(private readonly dir: string) {}

  async write(id: string, data: Buffer): Promise<void> {
    const path = await this.pathFor(id, true);
    const part = partName(path);
    try {
      await writeFile(part, data);
    } catch (error) {
      // Its directory was removed behind this process's back: made again, and the write tried once more.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.made.clear();
      await this.pathFor(id, true);
      await writeFile(part, data);
    }
    await rename(part, path);
  }

  async writeStream(id: string, source: AsyncIterable<Buffer>, maxBytes: number): Promise<number> {
    this.made.clear(); // an upload is rare: its directory is made (or found) anew
    const path = await this.pathFor(id, true);
    const part = partName(path);
    let total = 0;
    async function* capped() {
      for await (const chunk of source) {
        total += chunk.length;
        if (total > maxBytes) throw new BlobTooLarge(maxBytes);
        yield chunk;
      }
    }
    try {
      await pipeline(capped, createWriteStream(part));
    } catch (error) {
      await rm(part, { force: true });
      throw error;
    }
    await rename(part, path);
    return total;
  }

  async read(id: string): Promise<Buffer | null> {
    try {
      return await readFile(await this.pathFor(id, false));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async readStream(id: string): Promise<AsyncIterable<Buffer> | null> {
    const path = await this.pathFor(id, false);
    try {
      await stat(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
    return createReadStream(path, { highWaterMark: 256 * 1024 });
  }

  async delete(id: string): Promise<void> {
    await rm(await this.pathFor(id, false), { force: true });
  }

  async close(): Promise<void> {}

  private async pathFor(id: string, create: boolean): Promise<string> {
    checkBlobId(id);
    const dir = join(this.dir, id.slice(-2).toLowerCase());
    if (create && !this.made.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.made.add(dir);
    }
    return join(dir, id);
  }
}

/** This process's tag in temporary names: random, as processes of two containers sharing the directory may have one pid. */
const PROCESS_TAG = `${process.pid}-${randomBytes(6).toString('hex')}`;
let partSerial = 0;

/** A temporary name of this writer's own (two writers of one blob never share one). */
function partName(path: string): string {
  return `${path}.${PROCESS_TAG}-${++partSerial}.part`;
}
