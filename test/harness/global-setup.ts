/**
 * jest global setup: starts redis-server and the MongoDB-wire server once for the whole run (or
 * uses REDIS_URL / MONGODB_URI when given). A missing server fails the run under CI=true and skips
 * the tests that need it, loudly, elsewhere.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startMongoWire, startRedis, type StartedServer } from './servers';

declare global {
  var __gleanerTestServers: StartedServer[] | undefined;
}

export default async function globalSetup(): Promise<void> {
  const started: StartedServer[] = [];
  const missing: string[] = [];
  const ci = process.env.CI === 'true';

  if (process.env.REDIS_URL) {
    process.env.TEST_REDIS_URL = process.env.REDIS_URL;
  } else {
    try {
      const redis = await startRedis();
      started.push(redis);
      process.env.TEST_REDIS_URL = redis.url;
    } catch (error) {
      if (ci) throw error;
      missing.push(`redis: ${(error as Error).message}`);
    }
  }

  if (process.env.MONGODB_URI) {
    process.env.TEST_MONGODB_URI = process.env.MONGODB_URI;
  } else {
    try {
      const mongo = await startMongoWire();
      started.push(mongo);
      process.env.TEST_MONGODB_URI = mongo.url;
    } catch (error) {
      if (ci) throw error;
      missing.push(`mongodb: ${(error as Error).message}`);
    }
  }

  // Tests read the servers from the environment; the cluster adapters themselves must not pick up
  // REDIS_URL/MONGODB_URI implicitly inside test processes.
  delete process.env.REDIS_URL;
  delete process.env.MONGODB_URI;

  if (missing.length > 0) {
    process.env.TEST_SERVERS_MISSING = missing.join('; ');
    const line = '!'.repeat(100);
    console.warn(`\n${line}\nSKIPPING tests that need: ${missing.join('; ')}\n(under CI=true this is a failure)\n${line}\n`);
  }
  globalThis.__gleanerTestServers = started;
  mkdirSync(join(__dirname, '..', '..', '.test-servers'), { recursive: true });
  writeFileSync(join(__dirname, '..', '..', '.test-servers', 'pids.json'), JSON.stringify(started.map((s) => s.pid)));
}
