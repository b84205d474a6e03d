/**
 * What one synchronous `POST /api/v1/extract` costs the cluster's store and Redis: the built API and one
 * crawler on the MongoDB-wire test server (through the counting proxy of bench:capacity) and Redis, N
 * extracts one after the other (an instant local model, a local page), then the store commands (per command
 * and collection) and the Redis commands per extract, driver and queue housekeeping of an idle interval of
 * the same length taken off.
 *
 *   node --import tsx test/bench/api/extract-ops.ts [n=40]
 */
import { API_MAIN, CRAWLER_MAIN, assertBuilt, startProcess } from '../../e2e/processes';
import { startModelServer } from '../../fixtures/model-server';
import { startPlayground } from '../../fixtures/playground/playground';
import { startMongoWire, startRedis } from '../../harness/servers';
import { diffCounts, isBackground, startMongoWireCounter, type WireCounts } from '../capacity/mongo-wire-counter';
import { RedisStats, type RedisSnapshot } from '../capacity/redis-stats';

const KEY = 'glk_' + 'C'.repeat(20) + 'c'.repeat(20);

async function main(): Promise<void> {
  const n = Number(process.argv[2] ?? 40);
  assertBuilt();
  const play = await startPlayground();
  const models = await startModelServer();
  const redis = await startRedis();
  const mongo = await startMongoWire();
  const counter = await startMongoWireCounter(mongo.url);
  const stats = new RedisStats(redis.url);
  const env = {
    GLEANER_BOOTSTRAP_KEY: KEY,
    GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    GLEANER_RESOLVE: play.resolve,
    GLEANER_BROWSER_ENABLED: 'false',
    GLEANER_LLM_RETRIES: '0',
    LOG_LEVEL: 'warn',
    MONGODB_URI: `${counter.url}/gleaner_ops`,
    REDIS_URL: redis.url,
    GLEANER_SECRET: 'bench-ops-secret-0123456789abcdefghij',
  };
  const api = await startProcess('api', API_MAIN, ['--role=api'], env, 'PORT');
  const crawler = await startProcess('crawler', CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
  try {
    const body = JSON.stringify({
      url: play.url('shop.test', '/product/7'),
      schema: { name: 'string', price: 'string', sku: 'string' },
      fetch_mode: 'static',
      llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-bench', base_url: models.openaiBaseUrl },
    });
    const extract = async () => {
      const res = await fetch(`${api.url}/api/v1/extract`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
      if (res.status !== 200) throw new Error(`extract answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    for (let i = 0; i < 3; i++) await extract(); // warm-up: key cache, SDK clients, first reads
    const window = async (work: () => Promise<void>) => {
      const started = Date.now();
      const [mongoBefore, redisBefore] = [counter.snapshot(), await stats.snapshot()];
      await work();
      const [mongoAfter, redisAfter] = [counter.snapshot(), await stats.snapshot()];
      return { ms: Date.now() - started, mongo: diffCounts(mongoAfter, mongoBefore), redis: RedisStats.diff(redisAfter, redisBefore) };
    };
    const busy = await window(async () => {
      for (let i = 0; i < n; i++) await extract();
    });
    const idle = await window(() => new Promise((resolve) => setTimeout(resolve, busy.ms)));
    report(n, busy.mongo, idle.mongo, busy.redis.calls, idle.redis.calls);
  } finally {
    await Promise.all([api.stop(), crawler.stop()]);
    await stats.close();
    await counter.close();
    await Promise.all([mongo.stop(), redis.stop(), play.close(), models.close()]);
  }
}

function report(n: number, busy: WireCounts, idle: WireCounts, busyRedis: RedisSnapshot['calls'], idleRedis: RedisSnapshot['calls']): void {
  const per = (a: number, b: number) => Math.round(((a - b) / n) * 100) / 100;
  let total = 0;
  console.log(`store commands per extract (${n} extracts, idle interval taken off):`);
  for (const [key, counts] of Object.entries(busy).sort((a, b) => b[1].n - a[1].n)) {
    if (isBackground(key)) continue;
    const value = per(counts.n, idle[key]?.n ?? 0);
    if (value <= 0) continue;
    total += value;
    console.log(`  ${String(value).padStart(6)}  ${key}`);
  }
  console.log(`  ${String(Math.round(total * 100) / 100).padStart(6)}  total`);
  let redisTotal = 0;
  console.log('redis commands per extract:');
  for (const [cmd, count] of Object.entries(busyRedis).sort((a, b) => b[1] - a[1])) {
    const value = per(count, idleRedis[cmd] ?? 0);
    if (value <= 0) continue;
    redisTotal += value;
    console.log(`  ${String(value).padStart(6)}  ${cmd}`);
  }
  console.log(`  ${String(Math.round(redisTotal * 100) / 100).padStart(6)}  total`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
