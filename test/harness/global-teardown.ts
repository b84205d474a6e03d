import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export default async function globalTeardown(): Promise<void> {
  for (const server of globalThis.__gleanerTestServers ?? []) await server.stop();
  // The store's file when the run used the file mode (GLEANER_TEST_MONGO_STORE=file).
  const dir = join(__dirname, '..', '..', '.test-servers');
  for (const name of readdirSync(dir)) if (/^mongo-wire-\d+\.mv\.db$/.test(name)) rmSync(join(dir, name), { force: true });
}
