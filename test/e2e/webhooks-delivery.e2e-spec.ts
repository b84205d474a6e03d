import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startWebhookReceiver } from '../fixtures/webhook-receiver';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';
import { WEBHOOK_TEST_ENV, webhookDeliverySuite } from './webhooks-delivery.suite';

jest.setTimeout(60_000);

describe('webhook delivery, embedded deployment', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded(WEBHOOK_TEST_ENV);
  });
  afterAll(async () => env?.close());
  webhookDeliverySuite(() => env);
});

describeWith(['mongodb', 'redis'], 'webhook delivery, cluster deployment', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded({
      ...WEBHOOK_TEST_ENV,
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_webhooks')}`,
      REDIS_URL: `${serverUrl('redis')}/5`,
      GLEANER_SECRET: 'webhooks-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'W'.repeat(40),
    });
  });
  afterAll(async () => env?.close());
  webhookDeliverySuite(() => env);
});

describe('webhook address guard', () => {
  it('refuses to deliver to a loopback address unless private networks are allowed', async () => {
    const receiver = await startWebhookReceiver();
    const env = await startEmbedded({ ...WEBHOOK_TEST_ENV, GLEANER_ALLOW_PRIVATE_NETWORKS: 'false', GLEANER_WEBHOOK_MAX_ATTEMPTS: '1' });
    try {
      const job = await http(env.baseUrl, 'POST', '/api/v1/test-jobs', {
        key: env.adminKey,
        body: { steps: 0, step_ms: 0, webhook_url: `${receiver.url}/ok` },
      });
      const records = await waitFor(async () => {
        const d = (await http(env.baseUrl, 'GET', `/api/v1/jobs/${job.body.id}/webhooks`, { key: env.adminKey })).body.deliveries;
        return d.length >= 2 && d.every((x: { status: string }) => x.status === 'failed') ? d : null;
      });
      expect(records[0].error_message).toMatch(/not allowed/);
      expect(receiver.requests).toEqual([]);
    } finally {
      await env.close();
      await receiver.close();
    }
  });
});
