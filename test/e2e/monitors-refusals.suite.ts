/**
 * Scheduled monitor runs that cannot start (docs/monitors.md "Runs that cannot start"), on both deployments:
 * the owner's stored key gone, the site or the schema deleted, the sealed key unreadable (sealed under a
 * secret the deployment no longer has). Each is a failed run on a job recorded failed with the reason,
 * a signed `monitor.failed`, and a failure in a row (metric and monitor). A manual run answers 409.
 * The scheduler is ticked by the test with a clock it sets (early in 2026, before any slot of the other
 * suites' monitors), and the clock is given back afterwards.
 */
import { createHmac } from 'node:crypto';
import { SecretBox } from '@app/core';
import { MonitorClock, MonitorScheduler } from '@app/monitors';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { MonitorEnv } from './monitors.suite';
import { http, waitFor } from './helpers';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SCHEMA = { name: 'string', price: 'number', items: [{ sku: 'string', price: 'number' }] };
const HOOK_SECRET = 'monitor-refusals-webhook-secret';

export function monitorRefusalsSuite(getEnv: () => MonitorEnv): void {
  let env: MonitorEnv;
  let key: string;
  let clock: MonitorClock;
  let scheduler: MonitorScheduler;
  let before: () => number;
  let now = Date.UTC(2026, 0, 5, 8, 0, 0);
  const created: string[] = [];
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...options });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-refusal-secret', base_url: env.models.openaiBaseUrl });
  const notify = (path: string) => ({ webhook: { url: `${env.receiver.url}${path}`, secret: HOOK_SECRET }, on: ['failed'] });

  async function monitor(body: Record<string, unknown>): Promise<string> {
    const res = await call('POST', '/api/v1/monitors', {
      body: { name: 'refused', url: `${env.site.url}/p/1`, schema: SCHEMA, schedule: { every: '1h' }, options: { max_depth: 0 }, ...body },
    });
    expect([res.status, res.body.errors]).toEqual([201, undefined]);
    created.push(res.body.id);
    return res.body.id as string;
  }

  /** Ticks the scheduler past the monitor's next run; the run (refused at once) as /runs lists it. */
  async function scheduledRun(id: string): Promise<Record<string, any>> {
    now = Date.parse((await call('GET', `/api/v1/monitors/${id}`)).body.next_run_at) + 1;
    const started = await scheduler.tick();
    const mine = started.filter((runId) => runId.startsWith(`${id}:`));
    expect(mine).toHaveLength(1);
    const runs = (await call('GET', `/api/v1/monitors/${id}/runs?limit=100`)).body.runs as Array<Record<string, any>>;
    return runs.find((r) => r.id === mine[0])!;
  }

  /** The signed monitor.failed of a run, as the receiver got it. */
  async function failedEvent(path: string, runId: string) {
    const event = await waitFor(async () =>
      env.receiver.ok(path).find((r) => r.json.type === 'monitor.failed' && r.json.data.run_id === runId),
    );
    const signed = `${event.headers['webhook-id']}.${event.headers['webhook-timestamp']}.${event.body}`;
    expect(String(event.headers['webhook-signature'])).toBe(`v1,${createHmac('sha256', HOOK_SECRET).update(signed).digest('base64')}`);
    return event;
  }

  /** What every refused run shows: failed with its reason, on a failed job of the monitor, a failure in a row. */
  async function expectRefused(id: string, run: Record<string, any>, category: string, reason: RegExp, failuresInARow: number) {
    expect(run).toMatchObject({ status: 'failed', trigger: 'schedule', job_id: expect.any(String) });
    expect(run.reason).toMatch(reason);
    const job = (await call('GET', `/api/v1/jobs/${run.job_id}`)).body;
    expect(job).toMatchObject({ status: 'failed', monitor_id: id, error_category: category, page_count: 0 });
    expect(job.error_message).toBe(run.reason);
    expect((await call('GET', `/api/v1/monitors/${id}`)).body).toMatchObject({
      consecutive_failures: failuresInARow,
      last_run: { id: run.id, status: 'failed' },
    });
    expect(JSON.stringify(run)).not.toMatch(/sk-refusal-secret|sk-stored-refusal/);
  }

  beforeAll(async () => {
    env = getEnv();
    key = (await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `refusals-${Date.now()}` } })).body
      .key.key;
    clock = env.app.app.get(MonitorClock, { strict: false });
    before = clock.now;
    clock.now = () => now;
    scheduler = env.app.app.get(MonitorScheduler, { strict: false });
  });
  afterAll(async () => {
    for (const id of created) await call('DELETE', `/api/v1/monitors/${id}`);
    clock.now = before;
  });

  it('the owner’s stored key deleted: failed runs in a row, each with monitor.failed, counted by the metric', async () => {
    const stored = await call('PUT', '/api/v1/llm/keys', {
      body: { provider: 'openai', is_enabled: true, api_key: 'sk-stored-refusal', base_url: env.models.openaiBaseUrl },
    });
    expect(stored.status).toBe(200);
    expect((await call('PUT', '/api/v1/llm/chain', { body: { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] } })).status).toBe(200);
    const id = await monitor({ notify: notify('/ok') });
    expect((await call('DELETE', `/api/v1/llm/keys/${stored.body.id}`)).status).toBe(200);
    for (let n = 1; n <= 3; n++) {
      const run = await scheduledRun(id);
      await expectRefused(id, run, 'no_models', /^The run could not start: .*[Nn]o usable model/, n);
      const event = await failedEvent('/ok', run.id);
      expect(event.json).toMatchObject({ job_id: run.job_id, data: { monitor_id: id, run_id: run.id, reason: run.reason } });
    }
    // The alert's gauge: no other monitor of this app has failed three runs in a row.
    const metrics = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    expect(Number(/^gleaner_monitor_max_consecutive_failures(?:\{[^}]*\})? (\d+)/m.exec(metrics)?.[1])).toBeGreaterThanOrEqual(3);
    // A manual run meets the same refusal and answers it (409), recorded as one more failed run.
    const manual = await call('POST', `/api/v1/monitors/${id}/run`);
    expect(manual.status).toBe(409);
    expect(manual.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(manual.body).toMatchObject({ run_id: expect.any(String), job_id: expect.any(String) });
    expect(manual.body.detail).toMatch(/could not start/);
    expect((await call('GET', `/api/v1/monitors/${id}`)).body.consecutive_failures).toBe(4);
    // A refused run's job has no crawl map and nothing to re-extract.
    expect((await call('GET', `/api/v1/jobs/${manual.body.job_id}/map`)).status).toBe(404);
    expect((await call('POST', `/api/v1/jobs/${manual.body.job_id}/reextract`, { body: {} })).status).toBe(409);
  });

  it('its site deleted: a failed run that names the site', async () => {
    const site = await call('POST', '/api/v1/sites', { body: { url: `${env.site.url}/p/1` } });
    expect(site.status).toBe(201);
    const id = await monitor({ url: undefined, site_id: site.body.id, llm_config: llm(), notify: notify('/ok') });
    expect((await call('DELETE', `/api/v1/sites/${site.body.id}`)).status).toBeLessThan(300);
    const run = await scheduledRun(id);
    await expectRefused(id, run, 'invalid_request', /^The run could not start: site_id: no such site/, 1);
    await failedEvent('/ok', run.id);
  });

  it('its schema deleted: a failed run that names the schema', async () => {
    const schema = await call('POST', '/api/v1/schemas', {
      body: { name: `refused-${Date.now()}`, schema_yaml: 'name: string\nprice: number\n', visibility: 'private' },
    });
    expect(schema.status).toBe(201);
    const id = await monitor({ schema: undefined, schema_id: schema.body.id, llm_config: llm(), notify: notify('/ok') });
    expect((await call('DELETE', `/api/v1/schemas/${schema.body.id}`)).status).toBeLessThan(300);
    const run = await scheduledRun(id);
    await expectRefused(id, run, 'invalid_request', /^The run could not start: schema_id: no such schema/, 1);
    await failedEvent('/ok', run.id);
  });

  it('its sealed key unreadable (sealed under a secret this deployment does not have): a failed run, no secret shown', async () => {
    const id = await monitor({ llm_config: llm(), notify: notify('/ok') });
    const store = env.app.app.get<DocumentStore>(DOCUMENT_STORE, { strict: false });
    const monitors = await store.collection({ name: 'monitors', indexes: [] });
    const foreign = new SecretBox({ current: 'an-earlier-secret-0123456789abcdefghij' });
    const sealed = JSON.stringify(foreign.seal(JSON.stringify({ llm_api_key: 'sk-refusal-secret' }), 'sealed-secret'));
    expect(await monitors.findOneAndUpdate({ _id: id }, { $set: { sealed_secrets: sealed } })).not.toBeNull();
    const run = await scheduledRun(id);
    await expectRefused(id, run, 'internal', /^The run could not start: .*GLEANER_PREVIOUS_SECRETS/, 1);
    await failedEvent('/ok', run.id);
    // The next slot is an hour on: the monitor goes on being scheduled.
    expect(Date.parse((await call('GET', `/api/v1/monitors/${id}`)).body.next_run_at)).toBeGreaterThan(now + HOUR - MINUTE);
  });
}
