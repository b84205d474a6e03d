/**
 * The archive's GridFS blobs during a store outage (docs/operations.md "The store goes down"): the
 * MongoDB-wire test server on a file is killed with -9, and every blob operation, a read stream already
 * open included, fails as StoreUnavailableError (the API's 503 with Retry-After), never as a driver error
 * or a hang; after the restart on the same file the same store reads the blob again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GridFsBlobStore } from '@app/archive';
import { StoreUnavailableError } from '@app/core';
import { toProblem } from '@app/http';
import { startMongoWire, type StartedServer } from '../harness/servers';

jest.setTimeout(120_000);

function killed(server: StartedServer): Promise<void> {
  process.kill(server.pid, 'SIGKILL');
  return server.stop(); // resolves on the exit the kill caused
}

async function drain(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* chunks(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield part;
}

describe('GridFS blob store: a store outage is StoreUnavailableError', () => {
  let dir: string;
  let server: StartedServer;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-gridfs-outage-'));
  });
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('fails every operation, and a read stream opened before the outage, as StoreUnavailableError; works again after the restart', async () => {
    const file = join(dir, 'store.mv.db');
    server = await startMongoWire({ dataFile: file });
    const port = Number(new URL(server.url).port);
    const blobs = await GridFsBlobStore.connect(server.url, { dbName: 'outage', serverSelectionTimeoutMS: 3000 });
    try {
      // Three GridFS chunks (255 KiB each): the stream reads them from the server as it is consumed.
      const data = randomBytes(600 * 1024);
      await blobs.write('blobOutage01', data);
      expect((await blobs.read('blobOutage01'))?.equals(data)).toBe(true);
      const open = await blobs.readStream('blobOutage01');
      expect(open).not.toBeNull();

      await killed(server);
      const midway = await drain(open!).catch((e: unknown) => e);
      expect(midway).toBeInstanceOf(StoreUnavailableError);
      expect(toProblem(midway, '/api/v1/jobs/j1/warc', 'req1')).toMatchObject({ status: 503, headers: { 'retry-after': '5' } });
      await expect(blobs.read('blobOutage01')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(blobs.readStream('blobOutage01')).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(blobs.write('blobOutage02', data)).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(
        blobs.writeStream('blobOutage03', chunks(data.subarray(0, 300_000), data.subarray(300_000)), 10 * data.length),
      ).rejects.toBeInstanceOf(StoreUnavailableError);
      await expect(blobs.delete('blobOutage01')).rejects.toBeInstanceOf(StoreUnavailableError);

      server = await startMongoWire({ dataFile: file, port });
      // The driver finds the server again by itself; the first operations may still meet the outage.
      let back: Buffer | null = null;
      for (let i = 0; i < 50 && !back; i++) back = await blobs.read('blobOutage01').catch(() => null);
      expect(back?.equals(data)).toBe(true);
      // The writes refused during the outage kept nothing.
      expect(await blobs.read('blobOutage02')).toBeNull();
      expect(await blobs.read('blobOutage03')).toBeNull();
    } finally {
      await blobs.close();
    }
  });
});
