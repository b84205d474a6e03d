/**
 * End-to-end tests of the chassis in the embedded deployment: the real app in this process on a
 * real port, the real SQLite store, queue and worker. Covers auth, scopes, tenant isolation,
 * every validation path, jobs, the SSE stream and the absence of secrets from logs.
 */
import { JobsRepository } from '@app/jobs';
import { startGates, type Gates } from '../fixtures/gate';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, readSse, waitFor } from './helpers';

jest.setTimeout(60_000);

/** Test jobs poll their gates (on this machine) through the address guard, like every fetch a job makes. */
const GATES_ALLOWED = { GLEANER_ALLOW_NETWORKS: '127.0.0.0/8' };

describe('embedded API', () => {
  let env: RunningApp;
  let admin: string;

  let gates: Gates;

  beforeAll(async () => {
    env = await startEmbedded({ ...GATES_ALLOWED, GLEANER_RATE_LIMIT_PER_MINUTE: '100000', GLEANER_SSE_HEARTBEAT_MS: '300' });
    admin = env.adminKey;
    expect(admin).toMatch(/^glk_[0-9A-Za-z]{40}$/);
    gates = await startGates();
  });
  afterAll(async () => {
    await env.close();
    await gates?.close();
  });

  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) => http(env.baseUrl, method, path, options);

  describe('operational endpoints', () => {
    it('serves /health, /api/v1/health, /ready without a key, with version headers', async () => {
      const health = await call('GET', '/health');
      expect(health.status).toBe(200);
      expect(health.body.status).toBe('ok');
      expect(health.headers.get('x-api-version')).toMatch(/^\d+\.\d+\.\d+/);
      expect(health.headers.get('x-request-id')).toMatch(/^req_/);
      expect((await call('GET', '/api/v1/health')).status).toBe(200);
      const ready = await call('GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body).toMatchObject({ status: 'ready', store: 'sqlite', queue: 'store' });
    });

    it('serves Prometheus metrics with HTTP, job and queue series', async () => {
      await call('GET', '/api/v1/jobs', { key: admin });
      const metrics = await call('GET', '/metrics');
      expect(metrics.status).toBe(200);
      expect(metrics.text).toContain('gleaner_http_requests_total{method="GET",route="/api/v1/jobs",status="200"');
      expect(metrics.text).toContain('gleaner_http_request_duration_seconds_bucket');
      expect(metrics.text).toMatch(/gleaner_jobs\{[^}]*type="test"/);
      expect(metrics.text).toMatch(/gleaner_queue_depth\{[^}]*queue="jobs"/);
    });

    it('serves the OpenAPI 3.1 document and the docs UI', async () => {
      const doc = await call('GET', '/api/v1/openapi.json');
      expect(doc.status).toBe(200);
      expect(doc.body.openapi).toBe('3.1.0');
      expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/api/v1/keys', '/api/v1/jobs', '/api/v1/jobs/{id}/stream']));
      expect(Object.keys(doc.body.paths)).not.toContain('/api/v1/test-jobs');
      const ui = await call('GET', '/docs');
      expect(ui.status).toBe(200);
      expect(ui.text).toContain('swagger');
    });

    it('describes problem types at /problems/<slug>', async () => {
      const page = await call('GET', '/problems/validation-error');
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({ type: '/problems/validation-error', status: 422 });
      const missing = await call('GET', '/problems/nope');
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toContain('application/problem+json');
    });
  });

  describe('authentication', () => {
    it('answers the quick-start request with an empty job list', async () => {
      const fresh = await startEmbedded();
      try {
        const res = await http(fresh.baseUrl, 'GET', '/api/v1/jobs', { key: fresh.adminKey });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ jobs: [], total: 0 });
      } finally {
        await fresh.close();
      }
    });

    it.each([
      ['no key', undefined, /Missing API key/],
      ['an unknown key', 'glk_' + 'x'.repeat(40), /Unknown API key/],
      ['a malformed key', 'not-a-key', /Unknown API key/],
    ])('rejects %s with 401 problem+json', async (_name, key, detail) => {
      const res = await call('GET', '/api/v1/jobs', { key });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body).toMatchObject({ type: '/problems/unauthorized', status: 401, title: 'Unauthorized' });
      expect(res.body.detail).toMatch(detail);
      expect(res.body.instance).toMatch(/^\/api\/v1\/jobs#req_/);
      expect(res.body.instance.split('#')[1]).toBe(res.headers.get('x-request-id'));
    });

    it('rejects a malformed Authorization header', async () => {
      const res = await call('GET', '/api/v1/jobs', { headers: { authorization: 'Basic abc' } });
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/Bearer/);
    });

    it('creates a key whose secret is shown once, lists keys without secrets, and revokes', async () => {
      const created = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'ci', scopes: ['jobs'] } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'ci', scopes: ['jobs'] });
      expect(created.body.key).toMatch(/^glk_[0-9A-Za-z]{40}$/);
      expect(created.body.key_prefix).toBe(created.body.key.slice(0, 12));
      expect(created.body.id).toHaveLength(26);

      const listed = await call('GET', '/api/v1/keys', { key: admin });
      expect(listed.status).toBe(200);
      expect(listed.text).not.toContain(created.body.key);
      expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(created.body.id);
      expect(listed.body.keys.every((k: Record<string, unknown>) => !('key' in k) && !('key_hash' in k))).toBe(true);

      expect((await call('GET', '/api/v1/jobs', { key: created.body.key })).status).toBe(200);
      const revoked = await call('DELETE', `/api/v1/keys/${created.body.id}`, { key: admin });
      expect(revoked.status).toBe(200);
      expect(revoked.body).toEqual({ success: true });
      const after = await call('GET', '/api/v1/jobs', { key: created.body.key });
      expect(after.status).toBe(401);
      expect(after.body.detail).toMatch(/revoked/);
    });

    it('rejects an expired key with 401', async () => {
      const created = await call('POST', '/api/v1/keys', {
        key: admin,
        body: { name: 'short', expires_at: new Date(Date.now() + 3000).toISOString() },
      });
      expect(created.status).toBe(201);
      expect((await call('GET', '/api/v1/jobs', { key: created.body.key })).status).toBe(200);
      // The app's clock decides when the key expires: poll until it answers 401 (generous deadline).
      const res = await waitFor(async () => {
        const attempt = await call('GET', '/api/v1/jobs', { key: created.body.key });
        return attempt.status === 200 ? null : attempt;
      });
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/expired/);
    });

    it('denies a scoped key what its scopes do not cover (403)', async () => {
      const extractOnly = (await call('POST', '/api/v1/keys', { key: admin, body: { name: 'x', scopes: ['extract'] } })).body.key;
      const jobs = await call('GET', '/api/v1/jobs', { key: extractOnly });
      expect(jobs.status).toBe(403);
      expect(jobs.body).toMatchObject({ type: '/problems/insufficient-scope', status: 403 });
      const keys = await call('POST', '/api/v1/keys', { key: extractOnly, body: { name: 'y' } });
      expect(keys.status).toBe(403);
      expect(keys.body.detail).toMatch(/full-access/);
      expect((await call('GET', '/api/v1/keys', { key: extractOnly })).status).toBe(403);
    });

    it('lets only admins manage users, and each user is a tenant', async () => {
      const created = await call('POST', '/api/v1/users', { key: admin, body: { name: 'acme' } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ name: 'acme', is_admin: false });
      expect(created.body.key.key).toMatch(/^glk_/);
      const tenantKey = created.body.key.key;
      expect((await call('GET', '/api/v1/users', { key: tenantKey })).status).toBe(403);
      expect((await call('POST', '/api/v1/users', { key: tenantKey, body: { name: 'evil' } })).status).toBe(403);
      const users = await call('GET', '/api/v1/users', { key: admin });
      expect(users.body.users.map((u: { name: string }) => u.name)).toEqual(expect.arrayContaining(['admin', 'acme']));

      // Tenant isolation: another user's job and key are 404, never 403.
      const job = await call('POST', '/api/v1/test-jobs', { key: admin, body: { steps: 0, step_ms: 0 } });
      expect(job.status).toBe(201);
      for (const path of [`/api/v1/jobs/${job.body.id}`, `/api/v1/jobs/${job.body.id}/stream`]) {
        const res = await call('GET', path, { key: tenantKey });
        expect(res.status).toBe(404);
        expect(res.body.type).toBe('/problems/not-found');
      }
      expect((await call('POST', `/api/v1/jobs/${job.body.id}/cancel`, { key: tenantKey })).status).toBe(404);
      const adminKeys = (await call('GET', '/api/v1/keys', { key: admin })).body.keys;
      expect((await call('DELETE', `/api/v1/keys/${adminKeys[0].id}`, { key: tenantKey })).status).toBe(404);
      expect((await call('GET', '/api/v1/jobs', { key: tenantKey })).body.jobs).toEqual([]);
    });
  });

  describe('request validation', () => {
    it('rejects malformed JSON with 400', async () => {
      const res = await call('POST', '/api/v1/keys', { key: admin, rawBody: '{"name": ', headers: { 'content-type': 'application/json' } });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: '/problems/bad-request', status: 400 });
    });

    it('rejects a non-JSON body with 415', async () => {
      const res = await call('POST', '/api/v1/keys', {
        key: admin,
        rawBody: 'name=x',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      expect(res.status).toBe(415);
      expect(res.body.type).toBe('/problems/unsupported-media-type');
    });

    it('rejects a body over 1 MiB with 413', async () => {
      const res = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'x'.repeat(1_100_000) } });
      expect(res.status).toBe(413);
      expect(res.body.type).toBe('/problems/payload-too-large');
    });

    it('rejects unknown fields, wrong types, bad scopes and past expiry with 422 errors[]', async () => {
      const unknown = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'x', admin: true } });
      expect(unknown.status).toBe(422);
      expect(unknown.body.type).toBe('/problems/validation-error');
      expect(unknown.body.errors).toEqual(
        expect.arrayContaining([expect.objectContaining({ location: 'body.admin', message: 'unknown field' })]),
      );

      const wrong = await call('POST', '/api/v1/keys', { key: admin, body: { name: 5, scopes: ['extract', 'root'] } });
      expect(wrong.status).toBe(422);
      const locations = wrong.body.errors.map((e: { location: string }) => e.location);
      expect(locations).toEqual(expect.arrayContaining(['body.name', 'body.scopes']));
      expect(wrong.body.errors.find((e: { location: string }) => e.location === 'body.name').value).toBe(5);

      const missing = await call('POST', '/api/v1/keys', { key: admin, body: {} });
      expect(missing.status).toBe(422);
      expect(missing.body.errors[0].location).toBe('body.name');

      const past = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } });
      expect(past.status).toBe(422);
      expect(past.body.errors[0]).toMatchObject({ location: 'body.expires_at', message: 'must be in the future' });

      const badDate = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'x', expires_at: 'tomorrow' } });
      expect(badDate.status).toBe(422);
      expect(badDate.body.errors[0].location).toBe('body.expires_at');

      const notObject = await call('POST', '/api/v1/keys', { key: admin, body: ['name'] });
      expect(notObject.status).toBe(422);
    });

    it.each([
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['limit=abc', 'query.limit'],
      ['offset=-1', 'query.offset'],
      ['page=2', 'query.page'],
    ])('rejects GET /jobs?%s with 422 at %s', async (query, location) => {
      const res = await call('GET', `/api/v1/jobs?${query}`, { key: admin });
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    });

    it('answers unknown routes with a 404 problem', async () => {
      const res = await call('GET', '/api/v1/nothing-here', { key: admin });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
    });
  });

  describe('jobs', () => {
    it('runs a job through the queue to completion and lists it newest first', async () => {
      const first = await call('POST', '/api/v1/test-jobs', { key: admin, body: { steps: 2, step_ms: 10, url: 'https://example.test/a' } });
      const second = await call('POST', '/api/v1/test-jobs', { key: admin, body: { steps: 1, step_ms: 10 } });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({ type: 'test', status: 'pending', url: 'https://example.test/a', page_count: 0 });
      const done = await waitFor(async () => {
        const job = (await call('GET', `/api/v1/jobs/${first.body.id}`, { key: admin })).body;
        return job.status === 'completed' ? job : null;
      });
      expect(done.page_count).toBe(2);
      expect(done.started_at).toBeTruthy();
      expect(done.completed_at >= done.started_at).toBe(true);
      const list = await call('GET', '/api/v1/jobs?limit=2&offset=0', { key: admin });
      expect(list.body.jobs.map((j: { id: string }) => j.id)).toEqual([second.body.id, first.body.id]);
      const offset = await call('GET', '/api/v1/jobs?limit=1&offset=1', { key: admin });
      expect(offset.body.jobs[0].id).toBe(first.body.id);
    });

    it('records a failing job with its error_category', async () => {
      const job = await call('POST', '/api/v1/test-jobs', {
        key: admin,
        body: { steps: 3, step_ms: 5, fail_at: 1, fail_category: 'http_error' },
      });
      const failed = await waitFor(async () => {
        const j = (await call('GET', `/api/v1/jobs/${job.body.id}`, { key: admin })).body;
        return j.status === 'failed' ? j : null;
      });
      expect(failed).toMatchObject({ error_category: 'http_error', page_count: 1 });
      expect(failed.error_message).toMatch(/step 1/);
    });

    it('cancels a running job, and refuses to cancel a finished one (409)', async () => {
      // One worker slot: a job sent after the cancel runs only once the cancelled job's handler has
      // returned, which makes "the worker stopped" an observable event.
      const single = await startEmbedded({ ...GATES_ALLOWED, GLEANER_WORKER_CONCURRENCY: '1' });
      try {
        const key = single.adminKey;
        const get = async (id: string) => (await http(single.baseUrl, 'GET', `/api/v1/jobs/${id}`, { key })).body;
        // Two pages, then the job waits at a closed gate before the third: provably running.
        const job = await http(single.baseUrl, 'POST', '/api/v1/test-jobs', {
          key,
          body: { steps: 1000, step_ms: 0, hold_at: 2, gate_url: gates.urlOf('cancel') },
        });
        await waitFor(async () => gates.polls('cancel') > 0);
        expect(await get(job.body.id)).toMatchObject({ status: 'running', page_count: 2 });
        const cancelled = await http(single.baseUrl, 'POST', `/api/v1/jobs/${job.body.id}/cancel`, { key });
        expect(cancelled.status).toBe(200);
        expect(cancelled.body).toMatchObject({ status: 'cancelled', error_category: 'cancelled' });
        const again = await http(single.baseUrl, 'POST', `/api/v1/jobs/${job.body.id}/cancel`, { key });
        expect(again.status).toBe(409);
        expect(again.body.type).toBe('/problems/conflict');
        // Let the job go on if it still would: a worker that missed the cancel runs all 1000 steps.
        gates.open('cancel');
        const next = await http(single.baseUrl, 'POST', '/api/v1/test-jobs', { key, body: { steps: 1, step_ms: 0 } });
        await waitFor(async () => (await get(next.body.id)).status === 'completed');
        // The worker stopped at the cancel: no page after it, and the status stays cancelled.
        expect(await get(job.body.id)).toMatchObject({ status: 'cancelled', page_count: 2 });
      } finally {
        await single.close();
      }
    });

    it('returns 404 for an unknown job id', async () => {
      const res = await call('GET', '/api/v1/jobs/01JD0000000000000000000000', { key: admin });
      expect(res.status).toBe(404);
    });

    it('keeps jobs beyond the per-user cap pending until a slot frees', async () => {
      const capped = await startEmbedded({ ...GATES_ALLOWED, GLEANER_MAX_RUNNING_JOBS_PER_USER: '1' });
      try {
        const key = capped.adminKey;
        // `a` takes the user's one slot and holds it at a closed gate until the test opens it.
        const a = await http(capped.baseUrl, 'POST', '/api/v1/test-jobs', {
          key,
          body: { steps: 1, step_ms: 0, hold_at: 0, gate_url: gates.urlOf('cap') },
        });
        await waitFor(async () => gates.polls('cap') > 0);
        const b = await http(capped.baseUrl, 'POST', '/api/v1/test-jobs', { key, body: { steps: 1, step_ms: 10 } });
        // The worker took `b` up and parked it for the cap (recorded on the job) instead of starting it.
        const jobs = capped.app.get(JobsRepository);
        await waitFor(async () => (await jobs.findForWorker(b.body.id))?.parked === true);
        expect((await http(capped.baseUrl, 'GET', `/api/v1/jobs/${b.body.id}`, { key })).body.status).toBe('pending');
        expect((await http(capped.baseUrl, 'GET', `/api/v1/jobs/${a.body.id}`, { key })).body.status).toBe('running');
        gates.open('cap');
        const bDone = await waitFor(async () => {
          const j = (await http(capped.baseUrl, 'GET', `/api/v1/jobs/${b.body.id}`, { key })).body;
          return j.status === 'completed' ? j : null;
        });
        const aDone = (await http(capped.baseUrl, 'GET', `/api/v1/jobs/${a.body.id}`, { key })).body;
        expect(aDone.status).toBe('completed');
        expect(bDone.started_at >= aDone.completed_at).toBe(true);
      } finally {
        await capped.close();
      }
    });
  });

  describe('job stream (SSE)', () => {
    it('streams status, results and complete with ids and a retry line, then closes', async () => {
      const job = await call('POST', '/api/v1/test-jobs', { key: admin, body: { steps: 3, step_ms: 30 } });
      const stream = await readSse(`${env.baseUrl}/api/v1/jobs/${job.body.id}/stream`, { key: admin });
      expect(stream.status).toBe(200);
      expect(stream.contentType).toContain('text/event-stream');
      expect(stream.ended).toBe(true);
      const ids = stream.events.map((e) => e.id);
      expect(ids).toEqual([...ids].sort((x, y) => x! - y!));
      expect(new Set(ids).size).toBe(ids.length);
      expect(stream.events[0]).toMatchObject({ id: 1, event: 'status', retry: 3000 });
      expect(stream.events[0].data).toMatchObject({ job_id: job.body.id, status: 'pending', page_count: 0 });
      expect(stream.events.filter((e) => e.event === 'result')).toHaveLength(3);
      const last = stream.events[stream.events.length - 1];
      expect(last.event).toBe('complete');
      expect(last.data).toMatchObject({ job_id: job.body.id, status: 'completed', page_count: 3, cost_usd: 0 });
      expect(last.data.results_url).toContain(`/api/v1/jobs/${job.body.id}/results`);
    });

    it('resumes exactly after Last-Event-ID following a disconnect', async () => {
      const job = await call('POST', '/api/v1/test-jobs', { key: admin, body: { steps: 6, step_ms: 60 } });
      const url = `${env.baseUrl}/api/v1/jobs/${job.body.id}/stream`;
      const firstPart = await readSse(url, { key: admin, stopAfter: 4 });
      expect(firstPart.events).toHaveLength(4);
      const lastId = firstPart.events[3].id!;
      const rest = await readSse(url, { key: admin, lastEventId: lastId });
      expect(rest.ended).toBe(true);
      expect(rest.events[0].id).toBe(lastId + 1);
      const all = [...firstPart.events, ...rest.events];
      expect(all.map((e) => e.id)).toEqual(all.map((_e, i) => i + 1));
      expect(all.filter((e) => e.event === 'result')).toHaveLength(6);
      expect(all.filter((e) => e.event === 'complete')).toHaveLength(1);
    });

    it('replays a finished job and closes at once', async () => {
      const job = await call('POST', '/api/v1/test-jobs', { key: admin, body: { steps: 1, step_ms: 0 } });
      await waitFor(async () => (await call('GET', `/api/v1/jobs/${job.body.id}`, { key: admin })).body.status === 'completed');
      // `ended`: the server closed the stream itself (the reader gives up only after 30 s).
      const replay = await readSse(`${env.baseUrl}/api/v1/jobs/${job.body.id}/stream`, { key: admin });
      expect(replay.ended).toBe(true);
      expect(replay.events[replay.events.length - 1].event).toBe('complete');
    });

    it('fails a test job whose gate the address guard refuses, without polling it', async () => {
      const job = await call('POST', '/api/v1/test-jobs', {
        key: admin,
        body: { steps: 1, step_ms: 0, hold_at: 0, gate_url: 'http://10.0.0.1/gate' },
      });
      expect(job.status).toBe(201);
      const done = await waitFor(async () => {
        const body = (await call('GET', `/api/v1/jobs/${job.body.id}`, { key: admin })).body;
        return body.status === 'failed' ? body : null;
      });
      expect(done).toMatchObject({ error_category: 'ssrf_blocked', page_count: 0 });
    });

    it('sends heartbeat comments while a job is quiet', async () => {
      // The job stays quiet at a closed gate until two heartbeats have arrived, then finishes.
      const job = await call('POST', '/api/v1/test-jobs', {
        key: admin,
        body: { steps: 1, step_ms: 0, hold_at: 0, gate_url: gates.urlOf('heartbeat') },
      });
      const response = await fetch(`${env.baseUrl}/api/v1/jobs/${job.body.id}/stream`, {
        headers: { authorization: `Bearer ${admin}`, accept: 'text/event-stream' },
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const lines = () => text.split('\n');
      const heartbeats = () => lines().filter((line) => line.startsWith(':') && line.slice(1).trim() === 'heartbeat').length;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
        if (heartbeats() >= 2) gates.open('heartbeat');
      }
      expect(heartbeats()).toBeGreaterThanOrEqual(2);
      // The quiet stretch came before the job's own events: the stream ends with `complete`.
      expect(
        lines()
          .filter((line) => line.startsWith('event: '))
          .pop(),
      ).toBe('event: complete');
    });

    it('requires the jobs scope and an existing job before streaming', async () => {
      const res = await readSse(`${env.baseUrl}/api/v1/jobs/01JD0000000000000000000000/stream`, { key: admin });
      expect(res.status).toBe(404);
    });
  });

  it('answers an unexpected error with a 500 whose error id is in the logs, never a stack trace', async () => {
    const res = await call('GET', '/api/v1/test-jobs/boom', { key: admin });
    expect(res.status).toBe(500);
    expect(res.body).toMatchObject({ type: '/problems/internal-error', status: 500, error_category: 'internal' });
    expect(res.body.error_id).toMatch(/^err_[0-9A-Z]{26}$/);
    expect(res.text).not.toContain('kaboom');
    expect(res.text).not.toMatch(/\bat \w+.*\(/);
    const line = await waitFor(async () => env.logs.text.split('\n').find((l) => l.includes(res.body.error_id)));
    expect(line).toContain('kaboom');
  });

  it('limits each key per minute with 429, Retry-After and RateLimit headers', async () => {
    const limited = await startEmbedded({ GLEANER_RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const statuses: number[] = [];
      const responses = [];
      for (let i = 0; i < 4; i++) {
        const last = await http(limited.baseUrl, 'GET', '/api/v1/jobs', { key: limited.adminKey });
        responses.push(last);
        statuses.push(last.status);
        if (i === 0) {
          expect(last.headers.get('ratelimit-limit')).toBe('3');
          expect(last.headers.get('ratelimit-remaining')).toBe('2');
          expect(Number(last.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
        }
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const last = responses[3];
      expect(last.body).toMatchObject({ type: '/problems/rate-limited', status: 429 });
      expect(Number(last.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(last.headers.get('ratelimit-remaining')).toBe('0');
      // The budget is per key, across every route; unauthenticated operational routes are not limited.
      const other = await http(limited.baseUrl, 'POST', '/api/v1/users', { key: limited.adminKey, body: { name: 'x' } });
      expect(other.status).toBe(429);
      const health = await http(limited.baseUrl, 'GET', '/health');
      expect(health.status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('never writes an API key secret to the logs', async () => {
    const created = await call('POST', '/api/v1/keys', { key: admin, body: { name: 'logged?' } });
    await call('GET', '/api/v1/jobs', { key: created.body.key });
    const last = await call('GET', '/api/v1/jobs', { key: 'glk_' + 'Z'.repeat(40) });
    // Request lines are logged once each response is done: wait for the last request's line.
    const requestId = last.headers.get('x-request-id');
    await waitFor(async () => env.logs.text.includes(`"request_id":"${requestId}"`));
    const logs = env.logs.text;
    expect(logs.length).toBeGreaterThan(1000);
    expect(logs).toContain('"request_id"');
    expect(logs).not.toContain(admin);
    expect(logs).not.toContain(created.body.key);
    expect(logs).not.toContain('Z'.repeat(40));
  });
});
