/** Webhook delivery against a real local receiver; run on both deployments. */
import { Webhook } from 'standardwebhooks';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export const WEBHOOK_TEST_ENV = {
  GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
  // Room for a busy machine (the receiver shares this process), yet well below /slow's 5 s.
  GLEANER_WEBHOOK_TIMEOUT_MS: '1000',
  GLEANER_WEBHOOK_MAX_ATTEMPTS: '3',
  GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
  GLEANER_RATE_LIMIT_PER_MINUTE: '100000',
};

export function webhookDeliverySuite(getEnv: () => RunningApp): void {
  let env: RunningApp;
  let receiver: WebhookReceiver;
  const SECRET = 'whsec-local-test-secret-value';
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) =>
    http(env.baseUrl, method, path, { key: env.adminKey, ...options });
  const runJob = async (body: Record<string, unknown>) => {
    const job = await call('POST', '/api/v1/test-jobs', { body: { steps: 2, step_ms: 5, ...body } });
    expect(job.status).toBe(201);
    await waitFor(async () => ['completed', 'failed'].includes((await call('GET', `/api/v1/jobs/${job.body.id}`)).body.status));
    return job.body.id as string;
  };
  const deliveriesOf = async (jobId: string) =>
    (await call('GET', `/api/v1/jobs/${jobId}/webhooks`)).body.deliveries as Array<Record<string, any>>;

  beforeAll(async () => {
    env = getEnv();
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => receiver.close());

  it('delivers every event of a job in order, signed, with custom headers, and records each attempt', async () => {
    const saved = await call('PUT', '/api/v1/webhooks/all-events', {
      body: {
        name: `all-${Date.now()}`,
        url: `${receiver.url}/ok`,
        is_active: true,
        events: ['*'],
        headers: [{ name: 'X-Team', value: 'data' }],
        secret: SECRET,
      },
    });
    expect([200, 201]).toContain(saved.status);
    const jobId = await runJob({ webhook_id: 'all-events' });
    const mine = await waitFor(async () => {
      const got = receiver.ok('/ok').filter((r) => r.json.job_id === jobId);
      return got.length >= 4 ? got : null;
    });
    expect(mine.map((r) => r.json.type)).toEqual(['job.started', 'job.page', 'job.page', 'job.completed']);
    const verifier = new Webhook(SECRET, { format: 'raw' });
    for (const request of mine) {
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-team']).toBe('data');
      const verified = verifier.verify(request.body, {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      }) as Record<string, unknown>;
      expect(verified).toMatchObject({ job_id: jobId, job_type: 'test' });
    }
    expect(() =>
      verifier.verify(mine[0].body.replace('job.started', 'job.hacked'), {
        'webhook-id': String(mine[0].headers['webhook-id']),
        'webhook-timestamp': String(mine[0].headers['webhook-timestamp']),
        'webhook-signature': String(mine[0].headers['webhook-signature']),
      }),
    ).toThrow();
    expect(mine[3].json.data).toMatchObject({ id: jobId, status: 'completed', page_count: 2 });
    expect(mine[1].json.data).toMatchObject({ status: 'completed', data: { step: 0 } });
    expect(mine[0].json.id).toMatch(/^evt_/);

    const records = await waitFor(async () => {
      const d = await deliveriesOf(jobId);
      return d.length === 4 && d.every((x) => x.status === 'success') ? d : null;
    });
    expect(records[0]).toMatchObject({
      webhook_id: 'all-events',
      url: `${receiver.url}/ok`,
      event_type: 'job.started',
      status_code: 200,
      attempt_number: 1,
      max_attempts: 3,
    });
    expect(records[0].delivered_at).toBeTruthy();
    expect(typeof records[0].response_time_ms).toBe('number');
    const byWebhook = await call('GET', '/api/v1/webhooks/all-events/deliveries');
    expect(byWebhook.body.deliveries.length).toBeGreaterThanOrEqual(4);
    expect(env.logs.text).not.toContain(SECRET);
  });

  it('retries a 500 and succeeds, keeping later events behind the failed one', async () => {
    const jobId = await runJob({ webhook: { url: `${receiver.url}/fail-first` } });
    const got = await waitFor(async () => {
      const ok = receiver.ok('/fail-first').filter((r) => r.json.job_id === jobId);
      return ok.length >= 4 ? ok : null;
    });
    expect(got.map((r) => r.json.type)).toEqual(['job.started', 'job.page', 'job.page', 'job.completed']);
    const all = receiver.requests.filter((r) => r.path === '/fail-first' && r.json.job_id === jobId);
    // Every event first failed once; no event was sent before the previous one had succeeded.
    expect(all.map((r) => `${r.json.type}:${r.answered}`)).toEqual([
      'job.started:500',
      'job.started:200',
      'job.page:500',
      'job.page:200',
      'job.page:500',
      'job.page:200',
      'job.completed:500',
      'job.completed:200',
    ]);
    expect(all[0].headers['webhook-id']).toBe(all[1].headers['webhook-id']);
    expect(all[0].headers['webhook-signature']).toBeUndefined();
    const records = await waitFor(async () => {
      const d = await deliveriesOf(jobId);
      return d.length === 8 && d.filter((x) => x.status === 'success').length === 4 ? d : null;
    });
    expect(records.filter((d) => d.status === 'retrying').map((d) => d.attempt_number)).toEqual([1, 1, 1, 1]);
    expect(records.filter((d) => d.status === 'success').map((d) => d.attempt_number)).toEqual([2, 2, 2, 2]);
    expect(records.find((d) => d.status === 'retrying')).toMatchObject({ status_code: 500, error_message: 'HTTP 500' });
  });

  it('filters events by the subscription', async () => {
    const jobId = await runJob({ webhook: { url: `${receiver.url}/ok`, events: ['job.completed'] } });
    // A job's events reach a target strictly in order and job.completed is its last one: once it has
    // been delivered, every event that was going to be sent has been (and recorded as an attempt).
    const records = await waitFor(async () => {
      const d = await deliveriesOf(jobId);
      return d.some((x) => x.status === 'success') ? d : null;
    });
    expect(records.map((d) => d.event_type)).toEqual(['job.completed']);
    expect(receiver.requests.filter((r) => r.json.job_id === jobId).map((r) => r.json.type)).toEqual(['job.completed']);
  });

  it('gives up after max_attempts on timeouts', async () => {
    const jobId = await runJob({ steps: 0, webhook: { url: `${receiver.url}/slow`, events: ['job.completed'] } });
    const records = await waitFor(async () => {
      const d = await deliveriesOf(jobId);
      return d.length === 3 && d[2].status === 'failed' ? d : null;
    }, 20_000);
    expect(records.map((d) => d.status)).toEqual(['retrying', 'retrying', 'failed']);
    expect(records.map((d) => d.attempt_number)).toEqual([1, 2, 3]);
    expect(records[0].error_message).toMatch(/timed out/);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const jobId = await runJob({ steps: 0, webhook: { url: `${receiver.url}/redirect`, events: ['job.completed'] } });
    const records = await waitFor(async () => {
      const d = await deliveriesOf(jobId);
      return d.length === 3 && d[2].status === 'failed' ? d : null;
    }, 20_000);
    expect(records.map((d) => d.status_code)).toEqual([302, 302, 302]);
    expect(receiver.requests.filter((r) => r.path === '/ok' && r.json.job_id === jobId)).toEqual([]);
  });

  it('gives up after max_attempts when the connection is refused', async () => {
    const closed = await startWebhookReceiver();
    const deadUrl = `${closed.url}/ok`;
    await closed.close();
    const jobId = await runJob({ steps: 0, webhook_url: deadUrl });
    const records = await waitFor(async () => {
      const d = await deliveriesOf(jobId);
      const completed = d.filter((x) => x.event_type === 'job.completed');
      return completed.length === 3 && completed[2].status === 'failed' ? d : null;
    }, 20_000);
    const completed = records.filter((x) => x.event_type === 'job.completed');
    expect(completed.map((d) => d.status)).toEqual(['retrying', 'retrying', 'failed']);
    expect(completed[0].error_message).toMatch(/connection failed \(ECONNREFUSED\)/);
    expect(completed[0].status_code).toBeNull();
  });

  it('does not call an inactive saved webhook, and rejects unknown or foreign webhook ids', async () => {
    await call('PUT', '/api/v1/webhooks/muted', { body: { name: `muted-${Date.now()}`, url: `${receiver.url}/ok`, is_active: false } });
    const jobId = await runJob({ webhook_id: 'muted' });
    // Whatever a job will ever send is stored in the outbox first, by its lifecycle hooks, and the
    // last hooks run before the job's "job finished" log line. After that line the outbox is final:
    // it must hold nothing for this job, so nothing can be delivered later either.
    await waitFor(async () =>
      env.logs.text.split('\n').some((line) => line.includes('"msg":"job finished"') && line.includes(`"job_id":"${jobId}"`)),
    );
    const outbox = await env.app.get<DocumentStore>(DOCUMENT_STORE).collection({ name: 'webhook_outbox', indexes: [] });
    expect(await outbox.find({ job_id: jobId })).toEqual([]);
    expect(receiver.requests.filter((r) => r.json.job_id === jobId)).toEqual([]);
    const unknown = await call('POST', '/api/v1/test-jobs', { body: { steps: 0, step_ms: 0, webhook_id: 'nope' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].location).toBe('body.webhook_id');
    const other = (await call('POST', '/api/v1/users', { body: { name: `wh-${Date.now()}` } })).body.key.key;
    const foreign = await http(env.baseUrl, 'POST', '/api/v1/test-jobs', {
      key: other,
      body: { steps: 0, step_ms: 0, webhook_id: 'muted' },
    });
    expect(foreign.status).toBe(422);
    const badInline = await call('POST', '/api/v1/test-jobs', { body: { steps: 0, step_ms: 0, webhook: { url: 'gopher://x' } } });
    expect(badInline.status).toBe(422);
    expect(badInline.body.errors[0].location).toBe('body.webhook.url');
  });
}
