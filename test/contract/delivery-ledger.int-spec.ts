import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { LEDGER_TTL_MS, RedisDeliveryLedger, StoreDeliveryLedger } from '@app/queue';
import { MongoDocumentStore, SqliteDocumentStore, type DocumentStore } from '@app/storage';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { deliveryLedgerContract } from './delivery-ledger.contract';

describe('DeliveryLedgerContract: StoreDeliveryLedger on SQLite (embedded)', () => {
  let dir = '';
  let store: SqliteDocumentStore;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-ledger-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
  });
  afterAll(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  // One process, one store: a peer is another ledger on the same store.
  deliveryLedgerContract(() => ({ create: () => StoreDeliveryLedger.open(store), peer: () => StoreDeliveryLedger.open(store) }));
});

describeWith(['mongodb'], 'DeliveryLedgerContract: StoreDeliveryLedger on the MongoDB-wire server', () => {
  let store: DocumentStore;
  beforeAll(async () => {
    store = await MongoDocumentStore.connect(process.env.TEST_MONGODB_URI!, {
      dbName: uniqueDbName('gleaner_ledger'),
      serverSelectionTimeoutMS: 5000,
    });
  });
  afterAll(() => store.close());
  deliveryLedgerContract(() => ({ create: () => StoreDeliveryLedger.open(store), peer: () => StoreDeliveryLedger.open(store) }));
});

describeWith(['redis'], 'DeliveryLedgerContract: RedisDeliveryLedger', () => {
  const keyPrefix = `gleaner-test-ledger-${process.pid}-${Date.now().toString(36)}`;
  deliveryLedgerContract(() => ({
    create: async () => new RedisDeliveryLedger({ redisUrl: serverUrl('redis')!, keyPrefix }),
    peer: async () => new RedisDeliveryLedger({ redisUrl: serverUrl('redis')!, keyPrefix }),
  }));
});

/**
 * What a delivery costs Redis (docs/capacity.md): one HINCRBY on the crawl's hash, and a PEXPIRE only the first
 * time this process counts in that hash (then once an hour). Seen with MONITOR, filtered by this test's own key.
 */
describeWith(['redis'], 'RedisDeliveryLedger: one command a delivery, one hash a crawl', () => {
  const keyPrefix = `gleaner-test-ledgercost-${process.pid}-${Date.now().toString(36)}`;
  const open: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    await Promise.all(open.map((c) => c.close()));
  });

  it('counts a delivery with one HINCRBY, keeps the hash with an expiry, and forgets a batch in one HDEL', async () => {
    const url = serverUrl('redis')!;
    const ledger = new RedisDeliveryLedger({ redisUrl: url, keyPrefix });
    const probe = new Redis(url);
    const watcher = probe.duplicate();
    const monitor = await watcher.monitor();
    open.push(ledger, ...[probe, watcher, monitor].map((c) => ({ close: async () => void c.disconnect() })));
    const job = `cost-${Date.now().toString(36)}`;
    const key = ledger.keyOf(job);
    const seen: string[] = [];
    monitor.on('monitor', (_time: string, args: string[]) => {
      if (args.includes(key)) seen.push(args[0].toLowerCase());
    });
    // MONITOR starts asynchronously: a marker command on the key proves it sees ours before counting.
    while (!seen.includes('exists')) {
      await probe.exists(key);
      await new Promise((r) => setTimeout(r, 20));
    }
    seen.length = 0;

    for (let i = 0; i < 4; i++) await ledger.count(job, `${job}:t${i}`);
    await ledger.forget(job, [`${job}:t0`, `${job}:t1`, `${job}:t2`]);
    await probe.exists(key); // MONITOR shows commands in order: once this one is seen, all of the ledger's are
    while (seen.at(-1) !== 'exists') await new Promise((r) => setTimeout(r, 20));
    seen.pop();
    expect(seen).toEqual(['hincrby', 'pexpire', 'hincrby', 'hincrby', 'hincrby', 'hdel']);
    expect(await probe.hgetall(key)).toEqual({ [`${job}:t3`]: '1' });
    expect(await probe.pttl(key)).toBeGreaterThan(LEDGER_TTL_MS - 60_000);
    await ledger.drop(job);
    expect(await probe.exists(key)).toBe(0);
  });
});
