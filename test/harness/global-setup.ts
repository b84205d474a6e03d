/**
 * jest global setup: compiles the test app, starts redis-server and the MongoDB-wire server once for the whole run (or
 * uses REDIS_URL / MONGODB_URI when given). `npm test` installs them first (pretest:
 * test/harness/install-system-deps.sh); a server that still cannot start fails the run, never skips it.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildTestApp } from '../test-app/build';
import { startMongoWire, startRedis, testMongoWireOptions, type StartedServer } from './servers';

declare global {
  var __gleanerTestServers: StartedServer[] | undefined;
}

export default async function globalSetup(): Promise<void> {
  // The test app that e2e suites start as child processes (test/test-app): compiled against dist/ in milliseconds.
  buildTestApp();
  const started: StartedServer[] = [];

  if (process.env.REDIS_URL) {
    process.env.TEST_REDIS_URL = process.env.REDIS_URL;
  } else {
    const redis = await startRedis();
    started.push(redis);
    process.env.TEST_REDIS_URL = redis.url;
  }

  if (process.env.MONGODB_URI) {
    process.env.TEST_MONGODB_URI = process.env.MONGODB_URI;
  } else {
    const mongo = await startMongoWire(testMongoWireOptions());
    started.push(mongo);
    process.env.TEST_MONGODB_URI = mongo.url;
  }

  // Tests read the servers from the environment; the cluster adapters themselves must not pick up
  // REDIS_URL/MONGODB_URI implicitly inside test processes.
  delete process.env.REDIS_URL;
  delete process.env.MONGODB_URI;

  globalThis.__gleanerTestServers = started;
  mkdirSync(join(__dirname, '..', '..', '.test-servers'), { recursive: true });
  // Per jest process: `npm test` runs the servers project as shards, each with its own servers.
  writeFileSync(join(__dirname, '..', '..', '.test-servers', `pids-${process.pid}.json`), JSON.stringify(started.map((s) => s.pid)));
}
