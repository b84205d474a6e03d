import { rmSync } from 'node:fs';
import { join } from 'node:path';

export default async function globalTeardown(): Promise<void> {
  for (const server of globalThis.__gleanerTestServers ?? []) await server.stop();
  // The store's file when the run used the file mode (GLEANER_TEST_MONGO_STORE=file): this run's only (global
  // setup named it by this process), another shard of `npm test` may still be using its own.
  rmSync(join(__dirname, '..', '..', '.test-servers', `mongo-wire-${process.pid}.mv.db`), { force: true });
}
