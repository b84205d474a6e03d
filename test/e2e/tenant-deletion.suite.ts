/**
 * DELETE /api/v1/users/{id} end to end (docs/api.md "Users"): a tenant with something in every store is
 * deleted while one of its crawls runs; its keys are refused at once, the crawl stops on the crawler, and
 * the stores, read directly, are exactly as they were before the tenant existed, while the other tenant's
 * data (the same pages archived, among the rest) is untouched. A deletion that stops half way is finished
 * by the next start. Run on both deployments by tenant-deletion.e2e-spec.ts.
 */
import { TENANT_ERASERS, type TenantErasers } from '@app/core';
import { UsersService } from '@app/auth';
import { PageArchive } from '@app/archive';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { TenantDeletionResumer } from '@app/auth';
import type { ModelServer } from '../fixtures/model-server';
import type { Playground } from '../fixtures/playground/playground';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';
import { mentions, storeDiff, type StoreDump } from './store-dump';

export interface TenantDeletionEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  receiver: WebhookReceiver;
  /** Every store of the deployment, read directly. */
  dump(): Promise<StoreDump>;
  /** Stops the app and starts it again on the same stores (a crash and a restart, for the resume). */
  restart(): Promise<RunningApp>;
}

/** Collections that hold something of a tenant with everything (`c_` of the SQLite table names left out). */
const TENANT_COLLECTIONS = [
  'users',
  'api_keys',
  'llm_provider_keys',
  'llm_chains',
  'sites',
  'auth_profiles',
  'schemas',
  'webhooks',
  'webhook_outbox',
  'webhook_streams',
  'webhook_deliveries',
  'monitors',
  'monitor_runs',
  'monitor_pages',
  'monitor_items',
  'monitor_changes',
  'jobs',
  'job_events',
  'job_results',
  'job_result_counters',
  'debug_captures',
  'screenshots',
  'idempotency_keys',
  'user_slots',
  'crawl_state',
  'crawl_entries',
  'archive_pages',
  'archive_blobs',
  'archive_usage',
  'learned_templates',
];

/** Transient queue messages: checked apart (they must let go of the deleted tenant's jobs). */
const QUEUE_TABLES = ['queue_messages', 'c_queue_messages'];

interface Tenant {
  id: string;
  key: string;
  /** Ids of what it made (jobs, monitors, sites...): none may be left after its deletion. */
  ids: string[];
  crawlId: string;
  resultId: string;
}

export function tenantDeletionSuite(getEnv: () => TenantDeletionEnv): void {
  let env: TenantDeletionEnv;
  const call = (key: string, method: string, path: string, options: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...options });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-tenant-secret', base_url: env.models.openaiBaseUrl });
  const finished = (key: string, jobId: string): Promise<any> =>
    waitFor(async () => {
      const job = (await call(key, 'GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(job?.status) ? job : null;
    }, 120_000);

  async function created(key: string, method: string, path: string, body: unknown, headers: Record<string, string> = {}) {
    const res = await call(key, method, path, { body, headers });
    expect([method, path, res.status < 300 ? 'ok' : res.text]).toEqual([method, path, 'ok']);
    return res.body;
  }

  /** A tenant with something in every store: keys, provider key and chain, site, public schema, webhook with deliveries,
   *  a monitor with a run's history, an extract with a debug capture under an Idempotency-Key, a screenshot, a crawl that
   *  archived its pages and learned a program, a batch, and a job deleted with DELETE /jobs/{id}. */
  async function tenantWithEverything(name: string): Promise<Tenant> {
    const user = await created(env.app.adminKey, 'POST', '/api/v1/users', { name });
    const key = user.key.key as string;
    const ids: string[] = [user.id];
    const made = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
      const res = await created(key, method, path, body, headers);
      if (res?.id) ids.push(res.id);
      if (res?.job_id) ids.push(res.job_id);
      return res;
    };
    await made('POST', '/api/v1/keys', { name: 'second', scopes: ['jobs'] });
    await made('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      is_enabled: true,
      api_key: 'sk-stored-secret',
      base_url: env.models.openaiBaseUrl,
    });
    await made('PUT', '/api/v1/llm/chain', { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] });
    const site = await made('POST', '/api/v1/sites', { url: env.play.url('shop.test', '/'), name: `${name} shop` });
    await made('POST', '/api/v1/auth-profiles', {
      name: `${name} login`,
      hosts: ['auth.test'],
      login: { type: 'form', url: env.play.url('auth.test', '/login'), username: 'tenant-user', password: 'tenant-password' },
    });
    await made('POST', '/api/v1/schemas', { name: `${name} product`, schema_yaml: 'name: string\nprice: string', visibility: 'public' });
    const webhook = await made('POST', '/api/v1/webhooks', { name: `${name}-hook`, url: `${env.receiver.url}/ok`, is_active: true });
    const monitor = await made('POST', '/api/v1/monitors', {
      name: `${name} monitor`,
      url: env.play.url('shop.test', '/catalog/page/2'),
      schema: { name: 'string' },
      llm_config: llm(),
      schedule: { every: '1h' },
      paused: true,
    });
    const run = await made('POST', `/api/v1/monitors/${monitor.id}/run`, {});
    ids.push(run.run.id);
    await waitFor(async () => {
      const runs = (await call(key, 'GET', `/api/v1/monitors/${monitor.id}/runs`)).body.runs as Array<{ status: string }>;
      return runs.every((r) => r.status === 'completed');
    }, 120_000);

    const extract = await made(
      'POST',
      '/api/v1/extract',
      {
        url: env.play.url('shop.test', '/catalog/page/1'),
        schema: { name: 'string' },
        fetch_mode: 'static',
        capture_debug: true,
        webhook_id: webhook.id,
        llm_config: llm(),
      },
      { 'idempotency-key': `${name}-extract` },
    );
    const shot = await made('POST', '/api/v1/scrape', {
      url: env.play.url('shop.test', '/catalog/page/1'),
      formats: ['screenshot'],
      fetch_mode: 'dynamic',
    });
    ids.push(shot.metadata.screenshot_id);
    const crawl = await made('POST', '/api/v1/crawl', {
      site_id: site.id,
      url: env.play.url('shop.test', '/catalog/page/1'),
      schema: { name: 'string' },
      llm_config: llm(),
      options: { follow_selector: 'a.product', max_depth: 1, max_pages: 3 },
      extraction_mode: 'auto',
    });
    const batch = await made('POST', '/api/v1/batch/extract', {
      urls: [env.play.url('shop.test', '/product/1'), env.play.url('shop.test', '/product/2')],
      schema: { name: 'string' },
      llm_config: llm(),
    });
    const doomed = await made('POST', '/api/v1/test-jobs', { steps: 1, step_ms: 0 });
    for (const jobId of [crawl.job_id, batch.job_id, doomed.id]) expect((await finished(key, jobId)).status).toBe('completed');
    expect((await call(key, 'DELETE', `/api/v1/jobs/${doomed.id}`)).status).toBe(200);
    // The webhook's deliveries are recorded, and delivered: nothing of them is still moving.
    await waitFor(async () => {
      const deliveries = (await call(key, 'GET', `/api/v1/jobs/${extract.job_id}/webhooks`)).body.deliveries as Array<{ status: string }>;
      return deliveries.length > 0 && deliveries.every((d) => d.status === 'success');
    }, 60_000);
    const results = (await call(key, 'GET', `/api/v1/jobs/${crawl.job_id}/results`)).body as Array<{ id: string }>;
    expect(results.length).toBeGreaterThan(0);
    expect((await call(key, 'GET', '/api/v1/learned-programs')).body.learned_programs.length).toBeGreaterThan(0);
    return { id: user.id, key, ids, crawlId: crawl.job_id, resultId: results[0].id };
  }

  let other: Tenant;
  let before: StoreDump;
  /**
   * The stores once the archive's usage tally is written (usage-tally.ts adds new bodies' bytes to a tenant's
   * usage up to a second later): a later write of what the tenant already did is not a change the deletion made.
   */
  const settledDump = async (): Promise<StoreDump> => {
    await env.app.app.get(PageArchive).writeUsage();
    return env.dump();
  };
  let otherPage: Buffer;

  beforeAll(async () => {
    env = getEnv();
    // The tenant that stays: made first, and settled, so the stores can be compared with what they hold now.
    other = await tenantWithEverything('stays');
    otherPage = Buffer.from(
      await (
        await fetch(`${env.app.baseUrl}/api/v1/jobs/${other.crawlId}/results/${other.resultId}/page`, {
          headers: { authorization: `Bearer ${other.key}` },
        })
      ).arrayBuffer(),
    );
    before = await settledDump();
  }, 600_000);

  it('refuses a tenant key (403), an unknown user (404), and an admin user, the caller’s own included (409)', async () => {
    expect((await call(other.key, 'DELETE', `/api/v1/users/${other.id}`)).status).toBe(403);
    const unknown = await call(env.app.adminKey, 'DELETE', '/api/v1/users/01JD0000000000000000000000');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toContain('application/problem+json');
    const users = (await call(env.app.adminKey, 'GET', '/api/v1/users')).body.users as Array<{
      id: string;
      is_admin: boolean;
      status: string;
    }>;
    expect(users.every((u) => u.status === 'active')).toBe(true);
    const self = users.find((u) => u.is_admin)!;
    const own = await call(env.app.adminKey, 'DELETE', `/api/v1/users/${self.id}`);
    expect(own.status).toBe(409);
    expect(own.body.detail).toMatch(/your own user/);
    // Another admin (made by the operators' CLI, which calls this): refused too, and left working.
    const ops = await env.app.app.get(UsersService).createUser('ops', true);
    const admin = await call(env.app.adminKey, 'DELETE', `/api/v1/users/${ops.id}`);
    expect(admin.status).toBe(409);
    expect(admin.body.detail).toMatch(/Admin users cannot be deleted/);
    expect((await call(ops.key.key, 'GET', '/api/v1/users')).status).toBe(200);
    before = await settledDump(); // the admin made here is part of the world the deletion below must leave
  });

  it('deletes a tenant from every store while its crawl runs: keys refused at once, the crawl stopped, the other tenant untouched', async () => {
    const gone = await tenantWithEverything('goes');
    const secondKey = (await call(gone.key, 'POST', '/api/v1/keys', { body: { name: 'warm' } })).body;
    gone.ids.push(secondKey.id);
    expect((await call(secondKey.key, 'GET', '/api/v1/jobs')).status).toBe(200); // in the key cache now
    // A crawl of the tenant provably in flight: its seed page is held by the site.
    const gate = `tenant-${Date.now()}`;
    const running = await created(gone.key, 'POST', '/api/v1/crawl', {
      url: env.play.url('shop.test', `/gate/${gate}`),
      schema: { name: 'string' },
      llm_config: llm(),
      options: { max_depth: 0, max_pages: 1 },
    });
    gone.ids.push(running.job_id);
    await waitFor(async () => env.play.held(gate) > 0, 60_000);
    // A body archived before issue 37 (an archive_blobs record, docs/archive.md "Where it is kept"): erased too.
    const legacy = await env.app.app.get<DocumentStore>(DOCUMENT_STORE).collection({ name: 'archive_blobs', indexes: [] });
    const at = new Date().toISOString();
    await legacy.insertOne({
      _id: `${gone.id}:${'f'.repeat(64)}`,
      user_id: gone.id,
      sha256: 'f'.repeat(64),
      blob_id: 'legacyblob0001',
      size: 10,
      stored_size: 5,
      encoding: 'br',
      stored: true,
      touch: 'legacytouch',
      touched_at: at,
      created_at: at,
    });
    // The tenant is in every store the check below reads (so finding nothing of it afterwards means something).
    const during = await env.dump();
    const holding = new Set(mentions(during, gone.ids).map((m) => m.collection.replace(/^c_/, '')));
    expect([...TENANT_COLLECTIONS].filter((c) => !holding.has(c))).toEqual([]);
    expect(
      storeDiff(before, during, QUEUE_TABLES).filter((d) => d.collection.includes('archive') && d.change === 'added').length,
    ).toBeGreaterThan(0);

    const deleted = await call(env.app.adminKey, 'DELETE', `/api/v1/users/${gone.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const key of [gone.key, secondKey.key]) expect((await call(key, 'GET', '/api/v1/jobs')).status).toBe(401);
    expect(((await call(env.app.adminKey, 'GET', '/api/v1/users')).body.users as Array<{ id: string }>).map((u) => u.id)).not.toContain(
      gone.id,
    );
    expect((await call(env.app.adminKey, 'DELETE', `/api/v1/users/${gone.id}`)).status).toBe(404);
    // The crawler dropped the page it was fetching (the cancel reached it): the site no longer holds a request.
    await waitFor(async () => env.play.held(gate) === 0, 60_000);
    // The queue lets go of the tenant's messages as they end.
    const after = await waitFor(async () => {
      const dump = await env.dump();
      return mentions(Object.fromEntries(QUEUE_TABLES.filter((t) => dump[t]).map((t) => [t, dump[t]])), gone.ids).length === 0
        ? dump
        : null;
    }, 60_000);

    // Read directly: nothing mentions the tenant or anything it made, and every other document is as it was.
    expect(mentions(after, gone.ids)).toEqual([]);
    expect(storeDiff(before, after, QUEUE_TABLES)).toEqual([]);
    // The other tenant's archived page (the same page body the deleted tenant also kept) is still served.
    const page = await fetch(`${env.app.baseUrl}/api/v1/jobs/${other.crawlId}/results/${other.resultId}/page`, {
      headers: { authorization: `Bearer ${other.key}` },
    });
    expect(page.status).toBe(200);
    expect(Buffer.from(await page.arrayBuffer()).equals(otherPage)).toBe(true);
    // One log line says what went, without the tenant's name or keys; the metrics count it.
    const line = env.app.logs.text.split('\n').find((l) => l.includes('"tenant deleted"') && l.includes(gone.id));
    expect(JSON.parse(line!)).toMatchObject({
      user_id: gone.id,
      resumed: false,
      erased: expect.objectContaining({ running_jobs: 1, user: 1 }),
    });
    expect(JSON.parse(line!).erased.jobs).toBeGreaterThanOrEqual(6);
    expect(env.app.logs.text).not.toContain(gone.key);
    expect(env.app.logs.text).not.toContain('"level":"error"');
    const metrics = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    expect(metrics).toMatch(/gleaner_tenant_deletions_total\{outcome="completed"[^}]*\} [1-9]/);
    expect(metrics).toMatch(/gleaner_tenant_deletions_pending\{[^}]*\} 0/);
  }, 600_000);

  it('a deletion that stops half way leaves the tenant "deleting" with its keys refused; the next start finishes it', async () => {
    const half = await created(env.app.adminKey, 'POST', '/api/v1/users', { name: 'half' });
    const ids = [half.id];
    const site = await created(half.key.key, 'POST', '/api/v1/sites', { url: env.play.url('shop.test', '/'), name: 'half shop' });
    const job = await created(half.key.key, 'POST', '/api/v1/test-jobs', { steps: 2, step_ms: 0 });
    ids.push(site.id, job.id);
    await finished(half.key.key, job.id);
    // The store fails this tenant's deletion right after its jobs were cancelled, before any data went.
    env.app.app.get<TenantErasers>(TENANT_ERASERS).register({
      name: 'failing_store',
      phase: 'jobs',
      run: async (userId) => {
        if (userId === half.id) throw new Error('the store went away');
        return 0;
      },
    });
    const failed = await call(env.app.adminKey, 'DELETE', `/api/v1/users/${half.id}`);
    expect(failed.status).toBe(500);
    expect(failed.body.type).toBe('/problems/internal-error');
    expect((await call(half.key.key, 'GET', '/api/v1/jobs')).status).toBe(401);
    const listed = (await call(env.app.adminKey, 'GET', '/api/v1/users')).body.users.find((u: { id: string }) => u.id === half.id);
    expect(listed).toMatchObject({ status: 'deleting' });
    expect(mentions(await env.dump(), [site.id, job.id]).length).toBeGreaterThan(0);
    expect((await http(env.app.baseUrl, 'GET', '/metrics')).text).toMatch(/gleaner_tenant_deletions_pending\{[^}]*\} 1/);

    // A restart on the same stores (the failing store is fixed): the start takes the deletion up and finishes it.
    const app = await env.restart();
    expect(await app.app.get(TenantDeletionResumer).startRound).toBe(1);
    expect(
      ((await http(app.baseUrl, 'GET', '/api/v1/users', { key: app.adminKey })).body.users as Array<{ id: string }>).map((u) => u.id),
    ).not.toContain(half.id);
    expect(mentions(await env.dump(), ids)).toEqual([]);
    const line = app.logs.text.split('\n').find((l) => l.includes('"tenant deleted"') && l.includes(half.id));
    expect(JSON.parse(line!)).toMatchObject({ user_id: half.id, resumed: true });
  }, 300_000);
}
