/**
 * Monitors end to end (docs/monitors.md), run on both deployments: validation at the field, CRUD,
 * runs as crawl jobs that carry monitor_id, conditional requests (ETag, Last-Modified), the text hash,
 * field diffs, removal after two misses, failures never removed, webhooks, and the scheduler with a
 * clock the test sets (skipped slot, one catch-up). Runs are awaited by polling their record; the
 * scheduler is ticked by the test, never by time.
 */
import { MonitorClock, MonitorScheduler } from '@app/monitors';
import type { ModelServer } from '../fixtures/model-server';
import type { MonitorSite } from '../fixtures/monitor-site';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export interface MonitorEnv {
  app: RunningApp;
  site: MonitorSite;
  models: ModelServer;
  receiver: WebhookReceiver;
}

const HOUR = 3_600_000;
const SCHEMA = { name: 'string', price: 'number', items: [{ sku: 'string', price: 'number' }] };

export function monitorsSuite(getEnv: () => MonitorEnv): void {
  let env: MonitorEnv;
  let key: string;
  let clock: MonitorClock;
  let scheduler: MonitorScheduler;
  let now = Date.UTC(2026, 10, 26, 10, 0, 0);
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...options });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-monitor-secret', base_url: env.models.openaiBaseUrl });

  /** The run once it ended (polled: a run ends when its crawl does, in this process). */
  async function ended(monitorId: string, runId: string) {
    return waitFor(async () => {
      const runs = (await call('GET', `/api/v1/monitors/${monitorId}/runs?limit=100`)).body.runs as Array<Record<string, any>>;
      const run = runs.find((r) => r.id === runId);
      return run && ['completed', 'failed'].includes(run.status) ? run : undefined;
    }, 60_000);
  }

  async function runNow(monitorId: string) {
    const res = await call('POST', `/api/v1/monitors/${monitorId}/run`);
    expect(res.status).toBe(202);
    expect(res.headers.get('location')).toBe(res.body.status_url);
    return ended(monitorId, res.body.run.id);
  }

  const changesOf = async (monitorId: string, runId: string) =>
    (await call('GET', `/api/v1/monitors/${monitorId}/changes?run_id=${encodeURIComponent(runId)}&limit=100`)).body.changes as Array<
      Record<string, any>
    >;

  beforeAll(async () => {
    env = getEnv();
    key = (await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `monitors-${Date.now()}` } })).body
      .key.key;
    clock = env.app.app.get(MonitorClock, { strict: false });
    clock.now = () => now;
    scheduler = env.app.app.get(MonitorScheduler, { strict: false });
  });

  describe('validation', () => {
    const base = () => ({ name: 'm', url: `${env.site.url}/`, schema: SCHEMA, schedule: { every: '1h' }, llm_config: llm() });
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['a cron that does not parse', { schedule: { cron: '61 * * * *' } }, 'body.schedule.cron'],
      ['an unknown time zone', { schedule: { cron: '0 * * * *', timezone: 'Mars/Olympus' } }, 'body.schedule.timezone'],
      ['an interval under the floor', { schedule: { every: '1m' } }, 'body.schedule.every'],
      ['an interval that is not one', { schedule: { every: 'often' } }, 'body.schedule.every'],
      ['both every and cron', { schedule: { every: '1h', cron: '0 * * * *' } }, 'body.schedule'],
      ['a key path outside the schema', { key: ['items.colour'] }, 'body.key[0]'],
      ['an unknown site', { url: undefined, site_id: 'nope' }, 'body.site_id'],
      ['an unknown schema', { schema: undefined, schema_id: 'nope' }, 'body.schema_id'],
      ['an unknown webhook', { notify: { webhook_id: 'nope' } }, 'body.notify.webhook_id'],
      ['an unknown notify kind', { notify: { webhook_url: 'https://hooks.example/x', on: ['moved'] } }, 'body.notify.on'],
      ['an unknown field', { colour: 'red' }, 'body.colour'],
    ];
    it.each(cases)('refuses %s with a 422 at the field', async (_name, change, location) => {
      const res = await call('POST', '/api/v1/monitors', { body: { ...base(), ...change } });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(res.body.errors.some((e: { location: string }) => e.location.startsWith(location))).toBe(true);
      expect(JSON.stringify(res.body)).not.toContain('sk-monitor-secret');
    });

    it('answers 404 for a monitor that is not yours, 401 without a key', async () => {
      expect((await call('GET', '/api/v1/monitors/01JD0000000000000000000000')).status).toBe(404);
      expect((await http(env.app.baseUrl, 'GET', '/api/v1/monitors', {})).status).toBe(401);
    });
  });

  describe('a monitor of product pages, keyed by URL', () => {
    let id: string;
    let first: Record<string, any>;

    it('is created with Location, its key sealed and never shown, its first run due at once', async () => {
      const res = await call('POST', '/api/v1/monitors', {
        body: {
          name: 'Shop prices',
          url: `${env.site.url}/`,
          schema: SCHEMA,
          options: { max_depth: 1, fetch_mode: 'static', max_pages: 50 },
          llm_config: llm(),
          schedule: { every: '1h' },
          notify: { webhook_url: `${env.receiver.url}/ok`, on: ['changed', 'removed', 'failed'] },
        },
      });
      expect(res.status).toBe(201);
      id = res.body.id;
      expect(res.headers.get('location')).toMatch(new RegExp(`/api/v1/monitors/${id}$`));
      expect(res.body).toMatchObject({ name: 'Shop prices', paused: false, key: [], first_run: 'added', remove_after_misses: 2 });
      expect(res.body.llm_config).toMatchObject({ provider: 'openai', has_key: true });
      expect(JSON.stringify(res.body)).not.toContain('sk-monitor-secret');
      expect(Date.parse(res.body.next_run_at)).toBeGreaterThanOrEqual(now);
      expect((await call('GET', '/api/v1/monitors?limit=1')).body).toMatchObject({ total: 1, monitors: [{ id }] });
    });

    it('first run: every page extracted and reported added; the run is a crawl job carrying monitor_id', async () => {
      env.site.resetCounts();
      first = await runNow(id);
      expect(first.status).toBe('completed');
      const pages = [...env.site.products.values()].length + 2; // products, the index, the list page
      expect(first.counts).toMatchObject({ added: pages, changed: 0, removed: 0, failed: 0, pages_fetched: pages, model_calls: pages });
      expect(first.counts.not_modified).toBe(0);
      const job = (await call('GET', `/api/v1/jobs/${first.job_id}`)).body;
      expect(job).toMatchObject({ type: 'crawl', status: 'completed', monitor_id: id });
      const changes = await changesOf(id, first.id);
      expect(changes).toHaveLength(pages);
      expect(changes.every((c) => c.kind === 'added')).toBe(true);
      const state = (await call('GET', `/api/v1/monitors/${id}/state?limit=100`)).body;
      expect(state.total).toBe(pages);
      expect(state.items.find((i: any) => i.key.url === `${env.site.url}/p/1`).record).toMatchObject({ price: 10 });
    });

    it('second run: 304s and equal texts cost no model call; changed prices are reported field by field; a 404 removes nothing', async () => {
      env.site.setPrice('1', '11.50'); // ETag page
      env.site.setPrice('3', '1,299.00'); // Last-Modified page
      env.site.setPrice('4', '40.00'); // no validators, same value: formatting only
      env.site.products.get('2')!.gone = true; // ETag page answers 404 this run
      env.site.resetCounts();
      const run = await runNow(id);
      expect(run.status).toBe('completed');
      const changes = await changesOf(id, run.id);
      expect(changes.map((c) => [c.kind, c.key.url, c.fields])).toEqual(
        expect.arrayContaining([
          ['changed', `${env.site.url}/p/1`, [{ path: 'price', before: 10, after: 11.5 }]],
          ['changed', `${env.site.url}/p/3`, [{ path: 'price', before: 30, after: 1299 }]],
        ]),
      );
      expect(changes).toHaveLength(2);
      // p/5 (ETag) and p/6 (ETag) answer 304; p/4 and the index have no validators but the same text; /list the same text.
      expect(env.site.hits.get('/p/5 304')).toBe(1);
      expect(env.site.hits.get('/p/1 200')).toBe(1);
      expect(run.counts).toMatchObject({ changed: 2, added: 0, removed: 0, not_modified: 2, model_calls: 2 });
      expect(run.counts.skipped_by_hash).toBeGreaterThanOrEqual(3);
      const state = (await call('GET', `/api/v1/monitors/${id}/state?limit=100`)).body.items as any[];
      expect(state.find((i) => i.key.url === `${env.site.url}/p/2`).misses).toBe(1);
      // The webhook: one monitor.changed with the two changes (added is not in `on`).
      const event = await waitFor(async () =>
        env.receiver.ok('/ok').find((r) => r.json.type === 'monitor.changed' && r.json.data.run_id === run.id),
      );
      expect(event.json.data).toMatchObject({ monitor_id: id, changes_total: 2, truncated: false });
      expect(event.headers['webhook-id']).toBeDefined();
    });

    it('a page back after one 404 is not removed; one gone for two runs in a row is', async () => {
      env.site.products.get('2')!.gone = false;
      const back = await runNow(id);
      expect(await changesOf(id, back.id)).toEqual([]);
      const p6 = env.site.products.get('6')!;
      p6.listed = false; // unlinked and gone
      p6.gone = true;
      const miss = await runNow(id);
      expect(await changesOf(id, miss.id)).toEqual([]);
      const removed = await runNow(id);
      const changes = await changesOf(id, removed.id);
      expect(changes).toEqual([expect.objectContaining({ kind: 'removed', key: { url: `${env.site.url}/p/6` } })]);
      expect(changes[0].fields).toEqual(expect.arrayContaining([{ path: 'price', before: 60, after: null }]));
      expect(removed.counts.removed).toBe(1);
    });

    it('lists changes as jsonl and by kind, since an instant', async () => {
      const res = await fetch(`${env.app.baseUrl}/api/v1/monitors/${id}/changes?format=jsonl&kind=changed&limit=100`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(res.headers.get('content-type')).toMatch(/application\/x-ndjson/);
      const lines = (await res.text())
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.key.url).sort()).toEqual([`${env.site.url}/p/1`, `${env.site.url}/p/3`]);
      const all = (await call('GET', `/api/v1/monitors/${id}/changes?limit=100`)).body;
      const last = all.changes[all.changes.length - 1].detected_at;
      expect((await call('GET', `/api/v1/monitors/${id}/changes?since=${encodeURIComponent(last)}`)).body.changes).toEqual([]);
      expect((await call('GET', `/api/v1/monitors/${id}/changes?since=yesterday`)).status).toBe(422);
    });

    it('the scheduler: a due slot starts once, a slot met while a run goes on is skipped, downtime gives one catch-up', async () => {
      const monitor = (await call('GET', `/api/v1/monitors/${id}`)).body;
      const before = (await call('GET', `/api/v1/monitors/${id}/runs?limit=100`)).body.total;
      now = Date.parse(monitor.next_run_at);
      const hold = env.site.hold('/');
      const started = await scheduler.tick();
      expect(started).toHaveLength(1);
      expect(await scheduler.tick()).toEqual([]); // the same instant: nothing more
      await hold.arrived; // the run is in flight
      now += HOUR;
      const skipped = await scheduler.tick();
      expect(skipped).toHaveLength(1);
      const runs = (await call('GET', `/api/v1/monitors/${id}/runs?limit=100`)).body.runs as any[];
      expect(runs.find((r) => r.id === skipped[0])).toMatchObject({ status: 'skipped', reason: expect.stringMatching(/still going/) });
      hold.release();
      await ended(id, started[0]);
      // Ten hours down: one run, and the next slot is after now.
      now += 10 * HOUR;
      const catchUp = await scheduler.tick();
      expect(catchUp).toHaveLength(1);
      await ended(id, catchUp[0]);
      expect(await scheduler.tick()).toEqual([]);
      const after = (await call('GET', `/api/v1/monitors/${id}`)).body;
      expect(Date.parse(after.next_run_at)).toBeGreaterThan(now);
      expect((await call('GET', `/api/v1/monitors/${id}/runs?limit=100`)).body.total).toBe(before + 3);
    });

    it('pauses (no scheduled run), resumes, updates partially, and deletes with its history', async () => {
      const paused = await call('POST', `/api/v1/monitors/${id}/pause`);
      expect(paused.body).toMatchObject({ paused: true, next_run_at: null });
      now += 100 * HOUR;
      expect(await scheduler.tick()).toEqual([]);
      const resumed = await call('POST', `/api/v1/monitors/${id}/resume`);
      expect(resumed.body.paused).toBe(false);
      expect(Date.parse(resumed.body.next_run_at)).toBeGreaterThan(now);
      const updated = await call('PUT', `/api/v1/monitors/${id}`, {
        body: { name: 'Renamed', schedule: { cron: '0 9 * * *', timezone: 'Europe/Paris' } },
      });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        name: 'Renamed',
        schedule: { cron: '0 9 * * *', timezone: 'Europe/Paris' },
        url: `${env.site.url}/`,
      });
      expect((await call('PUT', `/api/v1/monitors/${id}`, { body: { key: ['nope'] } })).status).toBe(422);
      expect((await call('DELETE', `/api/v1/monitors/${id}`)).status).toBe(204);
      expect((await call('GET', `/api/v1/monitors/${id}`)).status).toBe(404);
      expect((await call('GET', `/api/v1/monitors/${id}/changes`)).status).toBe(404);
    });
  });

  describe('a monitor whose runs fail', () => {
    it('records failed runs in a row, announces monitor.failed, and removes nothing', async () => {
      const created = await call('POST', '/api/v1/monitors', {
        body: {
          name: 'Failing',
          url: `${env.site.url}/p/404`, // no such product: the crawl's only page fails
          schema: SCHEMA,
          options: { max_depth: 0, fetch_mode: 'static' },
          llm_config: llm(),
          schedule: { every: '1h' },
          paused: true,
          notify: { webhook_url: `${env.receiver.url}/ok`, on: ['failed'] },
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.id;
      const first = await runNow(id);
      const second = await runNow(id);
      expect([first.status, second.status]).toEqual(['failed', 'failed']);
      expect(second.reason).toEqual(expect.any(String));
      expect((await call('GET', `/api/v1/monitors/${id}`)).body).toMatchObject({ consecutive_failures: 2, last_run: { status: 'failed' } });
      const events = await waitFor(async () => {
        const found = env.receiver.ok('/ok').filter((r) => r.json.type === 'monitor.failed' && r.json.data.monitor_id === id);
        return found.length === 2 ? found : undefined;
      });
      expect(events.map((e) => e.json.data.run_id).sort()).toEqual([first.id, second.id].sort());
      expect(events[0].json.data).toMatchObject({ monitor_name: 'Failing', reason: expect.any(String) });
      expect((await call('GET', `/api/v1/monitors/${id}/changes`)).body.total).toBe(0);
    });
  });

  describe('a monitor that reads the sitemap', () => {
    it('skips the pages whose sitemap lastmod is not after its last visit, without a request', async () => {
      const created = await call('POST', '/api/v1/monitors', {
        body: {
          name: 'Sitemap',
          url: `${env.site.url}/list`, // links to no product: every product comes from the sitemap
          schema: SCHEMA,
          options: { max_depth: 1, fetch_mode: 'static', use_sitemap: true },
          llm_config: llm(),
          schedule: { every: '1h' },
          paused: true,
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.id;
      const listed = [...env.site.products.values()].filter((p) => p.listed);
      // Every page last changed long ago (earlier tests changed some a moment ago).
      for (const p of env.site.products.values()) p.modified = new Date(Date.UTC(2026, 10, 1)).toUTCString();
      const first = await runNow(id);
      expect(first.counts).toMatchObject({ added: listed.length + 1, skipped_by_lastmod: 0 });
      const before = Number(listed[0].price.replace(/,/g, ''));
      env.site.setPrice(listed[0].id, '99.00');
      env.site.resetCounts();
      const second = await runNow(id);
      expect(second.counts).toMatchObject({ skipped_by_lastmod: listed.length - 1, changed: 1, model_calls: 1 });
      expect(second.counts.pages_fetched).toBe(2); // the changed product and /list
      for (const p of listed.slice(1)) expect([...env.site.hits.keys()].filter((k) => k.startsWith(`/p/${p.id} `))).toEqual([]);
      expect((await changesOf(id, second.id)).map((c) => [c.key.url, c.fields])).toEqual([
        [`${env.site.url}/p/${listed[0].id}`, [{ path: 'price', before, after: 99 }]],
      ]);
    });
  });

  describe('a monitor of list items keyed by sku, with a silent baseline and stored provider keys', () => {
    it('reports items that appear, change and disappear (after two misses)', async () => {
      expect(
        (
          await call('PUT', '/api/v1/llm/keys', {
            body: { provider: 'openai', is_enabled: true, api_key: 'sk-stored', base_url: env.models.openaiBaseUrl },
          })
        ).status,
      ).toBeLessThan(300);
      expect((await call('PUT', '/api/v1/llm/chain', { body: { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] } })).status).toBe(
        200,
      );
      const created = await call('POST', '/api/v1/monitors', {
        body: {
          name: 'Items',
          url: `${env.site.url}/list`,
          schema: SCHEMA,
          key: ['items.sku'],
          first_run: 'baseline',
          options: { max_depth: 0, fetch_mode: 'static' },
          schedule: { cron: '0 */6 * * *' },
        },
      });
      expect([created.status, created.body.errors]).toEqual([201, undefined]);
      const id = created.body.id;
      const baseline = await runNow(id);
      expect(baseline.counts).toMatchObject({ added: 3 });
      expect(await changesOf(id, baseline.id)).toEqual([]);
      env.site.items.splice(1, 1); // B-2 disappears
      env.site.items[0].price = 6; // A-1 changes
      env.site.items.push({ sku: 'D-4', price: 11 }); // D-4 appears
      const second = await runNow(id);
      const changes = await changesOf(id, second.id);
      expect(changes.map((c) => [c.kind, c.key.sku]).sort()).toEqual([
        ['added', 'D-4'],
        ['changed', 'A-1'],
      ]);
      expect(changes.find((c) => c.kind === 'changed')!.fields).toEqual([{ path: 'price', before: 5, after: 6 }]);
      const third = await runNow(id);
      expect((await changesOf(id, third.id)).map((c) => [c.kind, c.key.sku])).toEqual([['removed', 'B-2']]);
      const state = (await call('GET', `/api/v1/monitors/${id}/state`)).body;
      expect(state.items.map((i: any) => i.key.sku).sort()).toEqual(['A-1', 'C-3', 'D-4']);
    });
  });

  describe('a monitor of a saved site that keeps headers and cookies', () => {
    const SITE_KEY = 'site-key-do-not-leak-e41a';
    const SITE_SESSION = 'site-session-do-not-leak-0b9c';
    const OWN_SESSION = 'monitor-session-do-not-leak-5d27';
    const SECRETS = new RegExp(`${SITE_KEY}|${SITE_SESSION}|${OWN_SESSION}`);

    it("sends the site's under its own (its cookie wins by name), keeps its own sealed, shows them masked, keeps them on update", async () => {
      const site = await call('POST', '/api/v1/sites', {
        body: {
          url: `${env.site.url}/list`,
          crawl_options: { headers: { 'X-Key': SITE_KEY }, cookies: { session: SITE_SESSION, lang: 'de' } },
        },
      });
      expect(site.status).toBe(201);
      const created = await call('POST', '/api/v1/monitors', {
        body: {
          name: 'Members',
          site_id: site.body.id,
          schema: SCHEMA,
          options: { max_depth: 0, fetch_mode: 'static', cookies: { session: OWN_SESSION } },
          llm_config: llm(),
          schedule: { every: '1h' },
          paused: true,
        },
      });
      expect(created.status).toBe(201);
      const id = created.body.id;
      expect(created.body.options).toEqual({ max_depth: 0, fetch_mode: 'static', cookies: { session: '••••' } });
      const store = env.app.app.get<symbol, DocumentStore>(DOCUMENT_STORE);
      const record = await (await store.collection({ name: 'monitors', indexes: [] })).findOne({ _id: id });
      expect(record).toMatchObject({ fetch_secret_names: { headers: [], cookies: ['session'] }, fetch_secrets_sealed: expect.any(String) });
      expect(JSON.stringify(record)).not.toMatch(SECRETS);

      const since = env.site.received.length;
      const run = await runNow(id);
      expect(run.status).toBe('completed');
      const pages = env.site.received.slice(since).filter((r) => r.path === '/list');
      expect(pages.length).toBeGreaterThan(0);
      for (const page of pages) {
        expect(page.key).toBe(SITE_KEY);
        expect(page.cookie?.split('; ').sort()).toEqual(['lang=de', `session=${OWN_SESSION}`]);
      }
      const job = await call('GET', `/api/v1/jobs/${run.job_id}`);
      expect(job.body.options).toMatchObject({ headers: null, cookies: null });
      expect(job.text).not.toMatch(SECRETS);
      expect(JSON.stringify(await (await store.collection({ name: 'jobs', indexes: [] })).findOne({ _id: run.job_id }))).not.toMatch(
        SECRETS,
      );

      // An update of other options keeps them; null removes them.
      const kept = await call('PUT', `/api/v1/monitors/${id}`, { body: { options: { max_depth: 0, fetch_mode: 'static', delay_ms: 5 } } });
      expect(kept.status).toBe(200);
      expect(kept.body.options).toEqual({ max_depth: 0, fetch_mode: 'static', delay_ms: 5, cookies: { session: '••••' } });
      const removed = await call('PUT', `/api/v1/monitors/${id}`, { body: { options: { cookies: null } } });
      expect(removed.body.options).toEqual({});
      const bad = await call('PUT', `/api/v1/monitors/${id}`, { body: { options: { headers: { 'Transfer-Encoding': 'chunked' } } } });
      expect(bad.status).toBe(422);
      expect(bad.body.errors).toEqual([expect.objectContaining({ location: 'body.options.headers' })]);
      for (const answer of [created, kept, removed, bad]) expect(answer.text).not.toMatch(SECRETS);
      expect(env.app.logs.text).not.toMatch(SECRETS);
    });
  });
}
