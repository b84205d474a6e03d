/**
 * The cluster deployment for real: the built apps as separate processes, 2 API replicas and
 * 2 crawlers on one Redis and one MongoDB-wire server.
 */
import { spawnSync } from 'node:child_process';
import { startGates, type Gates } from '../fixtures/gate';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { http, readSse, waitFor } from './helpers';
import { API_MAIN, CRAWLER_MAIN, TEST_API_MAIN, TEST_CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(120_000);

const BOOTSTRAP = 'glk_' + 'C'.repeat(20) + 'l'.repeat(20);

describeWith(['redis', 'mongodb'], 'cluster deployment (2 API + 2 crawler processes)', () => {
  let env: Record<string, string>;
  const processes: AppProcess[] = [];
  let apiA: AppProcess;
  let apiB: AppProcess;
  let crawler1: AppProcess;
  let crawler2: AppProcess;
  let gates: Gates;

  beforeAll(async () => {
    gates = await startGates();
    assertBuilt();
    const db = uniqueDbName('gleaner_cluster');
    const redisDb = 3;
    spawnSync('redis-cli', ['-u', `${serverUrl('redis')}/${redisDb}`, 'flushdb']);
    env = {
      MONGODB_URI: `${serverUrl('mongodb')}/${db}`,
      REDIS_URL: `${serverUrl('redis')}/${redisDb}`,
      GLEANER_SECRET: 'cluster-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: BOOTSTRAP,
      // The test jobs wait on gates on this machine; they fetch through the address guard like every job.
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_QUEUE_STALLED_MS: '2000',
      GLEANER_SHUTDOWN_GRACE_MS: '300',
      // Longer than the wait below: a revocation seen on the other replica can only come from the broadcast.
      GLEANER_AUTH_CACHE_MS: '60000',
    };
    apiA = await startProcess('api-a', TEST_API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(apiA);
    apiB = await startProcess('api-b', TEST_API_MAIN, ['--role=api'], env, 'PORT');
    processes.push(apiB);
    crawler1 = await startProcess('crawler-1', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
    processes.push(crawler1);
    crawler2 = await startProcess('crawler-2', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
    processes.push(crawler2);
  });

  afterAll(async () => {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await gates.close();
  });

  it('uses the cluster adapters and bootstraps exactly one admin key', async () => {
    const ready = await http(apiA.url, 'GET', '/ready');
    expect(ready.body).toMatchObject({ status: 'ready', store: 'mongodb', queue: 'bull' });
    expect((await http(apiB.url, 'GET', '/api/v1/jobs', { key: BOOTSTRAP })).status).toBe(200);
    const keys = await http(apiB.url, 'GET', '/api/v1/keys', { key: BOOTSTRAP });
    expect(keys.body.keys).toHaveLength(1);
  });

  it('rejects on replica B a key revoked on replica A (the revocation broadcast, not the key cache expiry)', async () => {
    const created = await http(apiA.url, 'POST', '/api/v1/keys', { key: BOOTSTRAP, body: { name: 'replicated' } });
    expect(created.status).toBe(201);
    expect((await http(apiB.url, 'GET', '/api/v1/jobs', { key: created.body.key })).status).toBe(200);
    const revoked = await http(apiA.url, 'DELETE', `/api/v1/keys/${created.body.id}`, { key: BOOTSTRAP });
    expect(revoked.status).toBe(200);
    // B caches keys for a minute: only the broadcast can make it answer 401 within this wait.
    await waitFor(async () => (await http(apiB.url, 'GET', '/api/v1/jobs', { key: created.body.key })).status === 401, 20_000, 20);
  });

  it('deletes a tenant through A: its key cached on B is refused at once, its job running on a crawler stops', async () => {
    const tenant = (await http(apiA.url, 'POST', '/api/v1/users', { key: BOOTSTRAP, body: { name: 'leaving' } })).body;
    const key = tenant.key.key as string;
    expect((await http(apiB.url, 'GET', '/api/v1/jobs', { key })).status).toBe(200); // cached on B for a minute
    const gate = 'cluster-tenant-deletion';
    const job = await http(apiA.url, 'POST', '/api/v1/test-jobs', {
      key,
      body: { steps: 4, step_ms: 10, hold_at: 1, gate_url: gates.urlOf(gate) },
    });
    expect(job.status).toBe(201);
    // A step done and the job polling its gate: it is provably running on a crawler.
    await waitFor(async () => gates.polls(gate) > 0, 30_000);
    const activeJobs = async () =>
      /gleaner_queue_depth\{queue="jobs",state="active"[^}]*\} (\d+)/.exec((await http(crawler1.url, 'GET', '/metrics')).text)?.[1];
    expect(await activeJobs()).toBe('1');

    const deleted = await http(apiA.url, 'DELETE', `/api/v1/users/${tenant.id}`, { key: BOOTSTRAP });
    expect(deleted.status).toBe(204);
    expect((await http(apiA.url, 'GET', '/api/v1/jobs', { key })).status).toBe(401);
    // B caches keys for a minute: only the revocation broadcast can make it answer 401 within this wait.
    await waitFor(async () => (await http(apiB.url, 'GET', '/api/v1/jobs', { key })).status === 401, 20_000, 20);
    expect((await http(apiB.url, 'GET', '/api/v1/users', { key: BOOTSTRAP })).body.users.map((u: { id: string }) => u.id)).not.toContain(
      tenant.id,
    );
    // The cancel reached the crawler: it let go of the job's queue message (no job runs anywhere now).
    await waitFor(async () => (await activeJobs()) === '0', 30_000);
    expect((await http(apiA.url, 'GET', `/api/v1/jobs/${job.body.id}`, { key: BOOTSTRAP })).status).toBe(404);
    expect(crawler1.output() + crawler2.output() + apiA.output()).not.toMatch(/"level":"error"/);
    expect(apiA.output()).toMatch(
      new RegExp(`"user_id":"${tenant.id}"[^\\n]*"tenant deleted"|"tenant deleted"[^\\n]*"user_id":"${tenant.id}"`),
    );
  });

  it('finishes a job enqueued through A on a crawler and streams it from B', async () => {
    const job = await http(apiA.url, 'POST', '/api/v1/test-jobs', { key: BOOTSTRAP, body: { steps: 3, step_ms: 50 } });
    expect(job.status).toBe(201);
    const stream = await readSse(`${apiB.url}/api/v1/jobs/${job.body.id}/stream`, { key: BOOTSTRAP, timeoutMs: 20_000 });
    expect(stream.ended).toBe(true);
    const complete = stream.events[stream.events.length - 1];
    expect(complete).toMatchObject({ event: 'complete', data: { job_id: job.body.id, status: 'completed', page_count: 3 } });
    expect(stream.events.filter((e) => e.event === 'result')).toHaveLength(3);
    expect(crawler1.output() + crawler2.output()).not.toMatch(/"level":"error"/);
  });

  it('resumes a stream on the other replica with Last-Event-ID', async () => {
    const job = await http(apiA.url, 'POST', '/api/v1/test-jobs', { key: BOOTSTRAP, body: { steps: 5, step_ms: 80 } });
    const firstPart = await readSse(`${apiA.url}/api/v1/jobs/${job.body.id}/stream`, { key: BOOTSTRAP, stopAfter: 3 });
    const rest = await readSse(`${apiB.url}/api/v1/jobs/${job.body.id}/stream`, { key: BOOTSTRAP, lastEventId: firstPart.events[2].id });
    const ids = [...firstPart.events, ...rest.events].map((e) => e.id);
    expect(ids).toEqual(ids.map((_id, i) => i + 1));
    expect(rest.events[rest.events.length - 1].event).toBe('complete');
  });

  it('serves /health and /metrics on the crawler port', async () => {
    const health = await http(crawler1.url, 'GET', '/health');
    expect(health.body).toMatchObject({ status: 'ok', role: 'crawler' });
    const metrics = await http(crawler1.url, 'GET', '/metrics');
    expect(metrics.text).toContain('gleaner_job_transitions_total');
    expect(metrics.text).toContain('role="crawler"');
    expect(metrics.text).toMatch(/gleaner_browser_pool_pages\{[^}]*state="browsers"/);
    expect(metrics.text).toContain('gleaner_webhook_deliveries_total');
    // Before its first crawl page: the pages counter's series are there at 0, so Prometheus has the 0 before
    // the first page and increase() counts every page (npm run test:swarm scenario 7).
    for (const status of ['completed', 'failed', 'skipped', 'pending']) {
      expect(metrics.text).toMatch(new RegExp(`gleaner_crawl_pages_total\\{[^}]*status="${status}"[^}]*\\} 0\\n`));
    }
  });

  it('hands an in-flight job back on SIGTERM, exits cleanly, and another crawler finishes it', async () => {
    // Leave crawler-1 alone with the queue so it is the one holding the job, then bring in crawler-3.
    expect(await crawler2.stop('SIGTERM')).toBe(0);
    const gate = 'cluster-handback';
    const job = await http(apiA.url, 'POST', '/api/v1/test-jobs', {
      key: BOOTSTRAP,
      body: { steps: 8, step_ms: 10, hold_at: 3, gate_url: gates.urlOf(gate) },
    });
    expect(job.status).toBe(201);
    // Three steps done and the job polling its gate: it is provably in flight on crawler-1.
    await waitFor(async () => gates.polls(gate) > 0, 30_000);
    expect((await http(apiA.url, 'GET', `/api/v1/jobs/${job.body.id}`, { key: BOOTSTRAP })).body.page_count).toBe(3);
    const crawler3 = await startProcess('crawler-3', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
    processes.push(crawler3);
    const code = await crawler1.stop('SIGTERM');
    expect(code).toBe(0);
    expect(crawler1.output()).toContain('handed back');
    gates.open(gate);
    const done = await waitFor(async () => {
      const j = (await http(apiB.url, 'GET', `/api/v1/jobs/${job.body.id}`, { key: BOOTSTRAP })).body;
      return j.status === 'completed' ? j : null;
    }, 60_000);
    expect(done.page_count).toBe(8);
    const stream = await readSse(`${apiB.url}/api/v1/jobs/${job.body.id}/stream`, { key: BOOTSTRAP, timeoutMs: 30_000 });
    expect(stream.events.filter((e) => e.event === 'result')).toHaveLength(8);
    expect(stream.events.filter((e) => e.event === 'complete')).toHaveLength(1);
  });

  it('refuses to start the cluster roles without MONGODB_URI and REDIS_URL', () => {
    for (const main of [API_MAIN, CRAWLER_MAIN]) {
      const result = spawnSync(process.execPath, [main, '--role=api'], {
        env: { PATH: process.env.PATH },
        encoding: 'utf8',
        // Generous: loading the app on a machine busy with other work can take tens of seconds.
        timeout: 60_000,
      });
      expect(result.status).toBe(78);
      expect(result.stderr).toMatch(/MONGODB_URI, REDIS_URL: the (api|crawler) role runs only in cluster mode/);
    }
  }, 150_000);

  it('keeps secrets out of every process log', () => {
    for (const p of processes) {
      expect(p.output()).not.toContain(BOOTSTRAP);
      expect(p.output()).not.toContain(env.GLEANER_SECRET);
    }
  });
});
