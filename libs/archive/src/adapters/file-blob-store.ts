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

  constructor(private readonly dir: string) {}

  async write(id: string, data: Buffer): Promise<void> {
    const path = await this.pathFor(id, true);
    const part = partName(path);
    await writeFile(part, data);
    await rename(part, path);
  }

  async writeStream(id: string, source: AsyncIterable<Buffer>, maxBytes: number): Promise<number> {
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
    if (create) await mkdir(dir, { recursive: true });
    return join(dir, id);
  }
}

/** A temporary name of this writer's own (two writers of one blob never share one). */
function partName(path: string): string {
  return `${path}.${process.pid}-${randomBytes(6).toString('hex')}.part`;
}
