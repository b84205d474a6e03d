/**
 * A pending webhook retry survives kill -9 of the process holding it: after a restart (embedded)
 * or on another crawler (cluster) the delivery completes, exactly once.
 */
import { spawnSync } from 'node:child_process';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { http, tempDir, waitFor } from './helpers';
import { TEST_API_MAIN, TEST_CRAWLER_MAIN, assertBuilt, startProcess, type AppProcess } from './processes';

jest.setTimeout(120_000);

const KEY = 'glk_' + 'D'.repeat(20) + 'd'.repeat(20);
const BASE_ENV = {
  GLEANER_BOOTSTRAP_KEY: KEY,
  GLEANER_ALLOW_PRIVATE_NETWORKS: 'true',
  GLEANER_WEBHOOK_RETRY_BASE_MS: '1500',
  GLEANER_WEBHOOK_MAX_ATTEMPTS: '5',
  GLEANER_QUEUE_STALLED_MS: '1000',
};

async function provokePendingRetry(apiUrl: string, receiver: WebhookReceiver): Promise<string> {
  const job = await http(apiUrl, 'POST', '/api/v1/test-jobs', {
    key: KEY,
    body: { steps: 0, step_ms: 0, webhook: { url: `${receiver.url}/toggle`, events: ['job.completed'] } },
  });
  expect(job.status).toBe(201);
  await waitFor(async () => receiver.requests.some((r) => r.json.job_id === job.body.id && r.answered === 500), 60_000);
  // The process now holds a pending retry once the failed attempt is recorded as `retrying`.
  await waitFor(async () => {
    const records = (await http(apiUrl, 'GET', `/api/v1/jobs/${job.body.id}/webhooks`, { key: KEY })).body.deliveries as Array<{
      status: string;
    }>;
    return records.some((d) => d.status === 'retrying');
  }, 60_000);
  return job.body.id as string;
}

async function expectDeliveredOnce(apiUrl: string, receiver: WebhookReceiver, jobId: string): Promise<void> {
  // Durable state instead of "wait and see whether a duplicate follows": every attempt is stored as
  // a delivery record (as `pending`, before its request goes out), and an item is attempted only
  // while undelivered, by the one pump holding its stream. Once the records show the success and no
  // attempt in flight, nothing can be sent again.
  const records = await waitFor(
    async () => {
      const deliveries = (await http(apiUrl, 'GET', `/api/v1/jobs/${jobId}/webhooks`, { key: KEY })).body.deliveries as Array<{
        status: string;
        attempt_number: number;
      }>;
      const settled = deliveries.some((d) => d.status === 'success') && !deliveries.some((d) => d.status === 'pending');
      return settled ? deliveries : null;
    },
    60_000,
    100,
  );
  expect(receiver.ok('/toggle').filter((r) => r.json.job_id === jobId)).toHaveLength(1);
  expect(records.filter((d) => d.status === 'success')).toHaveLength(1);
  expect(records[records.length - 1].status).toBe('success');
  expect(records[0]).toMatchObject({ status: 'retrying', attempt_number: 1 });
}

describe('webhook retry across kill -9, embedded', () => {
  beforeAll(() => assertBuilt());

  it('completes the delivery once after a restart', async () => {
    const receiver = await startWebhookReceiver();
    const env = { ...BASE_ENV, DATA_DIR: tempDir('gleaner-wh-crash-') };
    let second: AppProcess | undefined;
    try {
      const first = await startProcess('embedded-1', TEST_API_MAIN, [], env, 'PORT');
      const jobId = await provokePendingRetry(first.url, receiver);
      first.child.kill('SIGKILL');
      await first.exited;
      receiver.state.down = false;
      second = await startProcess('embedded-2', TEST_API_MAIN, [], env, 'PORT');
      await expectDeliveredOnce(second.url, receiver, jobId);
    } finally {
      await second?.stop('SIGKILL');
      await receiver.close();
    }
  });
});

describeWith(['redis', 'mongodb'], 'webhook retry across kill -9, cluster', () => {
  beforeAll(() => assertBuilt());

  it('completes the delivery once on another crawler', async () => {
    const receiver = await startWebhookReceiver();
    const redisUrl = `${serverUrl('redis')}/9`;
    spawnSync('redis-cli', ['-u', redisUrl, 'flushdb']);
    const env = {
      ...BASE_ENV,
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_wh_crash')}`,
      REDIS_URL: redisUrl,
      GLEANER_SECRET: 'wh-crash-secret-0123456789abcdef0123',
    };
    const processes: AppProcess[] = [];
    try {
      const api = await startProcess('api', TEST_API_MAIN, ['--role=api'], env, 'PORT');
      processes.push(api);
      const crawler1 = await startProcess('crawler-1', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT');
      processes.push(crawler1);
      const jobId = await provokePendingRetry(api.url, receiver);
      crawler1.child.kill('SIGKILL');
      await crawler1.exited;
      receiver.state.down = false;
      processes.push(await startProcess('crawler-2', TEST_CRAWLER_MAIN, [], env, 'CRAWLER_PORT'));
      await expectDeliveredOnce(api.url, receiver, jobId);
    } finally {
      await Promise.all(processes.map((p) => p.stop('SIGKILL')));
      await receiver.close();
    }
  });
});
