import type { ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Caller } from '@app/auth';
import { JobsRepository, type JobRecord } from '@app/jobs';
import { EXPORT_BATCH_SIZE, ResultsRepository, ResultsService } from '@app/results';
import { describeWith, serverUrl, uniqueDbName } from '../harness/require-server';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';
import { resultsSuite } from './results.suite';

jest.setTimeout(120_000);

describe('job results, embedded deployment', () => {
  let env: RunningApp;
  beforeAll(async () => {
    // Test jobs poll their gates (on this machine) through the address guard.
    env = await startEmbedded({ GLEANER_RATE_LIMIT_PER_MINUTE: '100000', GLEANER_ALLOW_NETWORKS: '127.0.0.0/8' });
  });
  afterAll(async () => env?.close());
  resultsSuite(() => env);

  describe('streaming a large export', () => {
    const COUNT = 5000;
    const PAD = 8 * 1024;
    let jobId: string;

    beforeAll(async () => {
      const created = await http(env.baseUrl, 'POST', '/api/v1/test-jobs', { key: env.adminKey, body: { steps: 0, step_ms: 0 } });
      jobId = created.body.id;
      await waitFor(
        async () => (await http(env.baseUrl, 'GET', `/api/v1/jobs/${jobId}`, { key: env.adminKey })).body.status === 'completed',
      );
      const job = (await env.app.get(JobsRepository).findForWorker(jobId)) as JobRecord;
      const results = env.app.get(ResultsService);
      for (let i = 0; i < COUNT; i++) {
        await results.record(job, { url: `https://big.example/${i}`, status: 'completed', data: { i, pad: String(i % 10).repeat(PAD) } });
      }
    });

    afterEach(() => jest.restoreAllMocks());

    /** Watches the export from the server side (the app runs in this process): its response, and the rows it read from the store. */
    function watchExport(): { response?: ServerResponse; pulled: number } {
      const service = env.app.get(ResultsService);
      const repository = env.app.get(ResultsRepository);
      const send = service.send.bind(service);
      const iterateOwn = repository.iterateOwn.bind(repository);
      const watch: { response?: ServerResponse; pulled: number } = { pulled: 0 };
      async function* counting<T>(rows: AsyncIterable<T>): AsyncIterable<T> {
        for await (const row of rows) {
          watch.pulled += 1;
          yield row;
        }
      }
      jest.spyOn(service, 'send').mockImplementation((response, body, headers) => {
        watch.response = response;
        return send(response, body, headers);
      });
      jest.spyOn(repository, 'iterateOwn').mockImplementation((...args) => counting(iterateOwn(...args)));
      return watch;
    }

    it(`exports ${COUNT} results (~${(COUNT * PAD) / 1e6} MB) as jsonl without holding them in memory`, async () => {
      const server = watchExport();
      setFlagsFromString('--expose-gc');
      const gc = runInNewContext('gc') as () => void;
      gc();
      const baseline = process.memoryUsage().heapUsed;

      const response = await fetch(`${env.baseUrl}/api/v1/jobs/${jobId}/results?format=jsonl`, {
        headers: { authorization: `Bearer ${env.adminKey}` },
      });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let lines = 0;
      let tail = '';
      let bytes = 0;
      let peakGrowth = 0;
      let lastIndex = -1;
      let sampled = false;
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        const text = tail + decoder.decode(value, { stream: true });
        const parts = text.split('\n');
        tail = parts.pop()!;
        for (const line of parts) {
          const item = JSON.parse(line) as { data: { i: number } };
          expect(item.data.i).toBe(lastIndex + 1);
          lastIndex = item.data.i;
          lines++;
        }
        if (!sampled && lines >= 500) {
          // Stop reading until the server is provably held back by backpressure: its response waits
          // for 'drain' and it read no further row from the store since the previous look. A buffering
          // implementation would now hold all ~40 MB of results; a streaming one about one store batch.
          sampled = true;
          let pulledBefore = -1;
          await waitFor(
            async () => {
              const stalled = server.response?.writableNeedDrain === true && server.pulled === pulledBefore;
              pulledBefore = server.pulled;
              return stalled;
            },
            30_000,
            100,
          );
          gc();
          peakGrowth = process.memoryUsage().heapUsed - baseline;
        }
      }
      expect(lines).toBe(COUNT);
      expect(tail).toBe('');
      expect(bytes).toBeGreaterThan(COUNT * PAD);
      expect(server.pulled).toBe(COUNT);
      // Loose bound: a few store batches (EXPORT_BATCH_SIZE rows of ~8 KB) and write buffers, far below the export's size.
      expect(EXPORT_BATCH_SIZE * PAD).toBeLessThan(4e6);
      expect(peakGrowth).toBeLessThan(16e6);
    });

    it('merges them too (one url each, all distinct)', async () => {
      const res = await http(env.baseUrl, 'GET', `/api/v1/jobs/${jobId}/results?format=jsonl&merge=true`, { key: env.adminKey });
      expect(res.status).toBe(200);
      expect(res.text.trimEnd().split('\n')).toHaveLength(COUNT);
    });
  });

  it('records nothing for captures of a job without capture_debug', async () => {
    const job = { _id: 'x', user_id: 'u', type: 'test', capture_debug: false } as unknown as JobRecord;
    const capture = await env.app.get(ResultsService).recordCapture(job, {
      url: 'https://a.example/',
      prompt: 'p',
      raw_content: 'c',
      schema: '{}',
      request: {},
      response: {},
    });
    expect(capture).toBeNull();
  });

  it('scrubs keys from captures', async () => {
    const created = await http(env.baseUrl, 'POST', '/api/v1/test-jobs', {
      key: env.adminKey,
      body: { steps: 0, step_ms: 0, capture_debug: true },
    });
    const job = (await env.app.get(JobsRepository).findForWorker(created.body.id)) as JobRecord;
    const byok = 'my-own-provider-key-123456';
    const capture = await env.app.get(ResultsService).recordCapture(
      job,
      {
        url: 'https://a.example/',
        prompt: `use ${byok} and sk-ant-api03-abcdefghijklmnopqrstuvwxyz and glk_${'a'.repeat(40)}`,
        raw_content: 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123',
        schema: '{}',
        request: {},
        response: { error: `401 for key ${byok}` },
      },
      { redact: [byok] },
    );
    const text = JSON.stringify(capture);
    expect(text).not.toContain(byok);
    expect(text).not.toContain('sk-ant-api03');
    expect(text).not.toContain('glk_aaaa');
    expect(text).not.toContain('abcdefghijklmnopqrstuvwxyz0123');
    expect(capture!.response.success).toBe(false);
    const caller = { userId: job.user_id } as Caller;
    expect(await env.app.get(ResultsService).first(caller, job._id)).toBeNull();
  });
});

describeWith(['mongodb', 'redis'], 'job results, cluster deployment (MongoDB + Redis)', () => {
  let env: RunningApp;
  beforeAll(async () => {
    env = await startEmbedded({
      MONGODB_URI: `${serverUrl('mongodb')}/${uniqueDbName('gleaner_results')}`,
      REDIS_URL: `${serverUrl('redis')}/7`,
      GLEANER_SECRET: 'results-test-secret-0123456789abcdef',
      GLEANER_BOOTSTRAP_KEY: 'glk_' + 'S'.repeat(40),
      GLEANER_RATE_LIMIT_PER_MINUTE: '100000',
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
    });
  });
  afterAll(async () => env?.close());
  resultsSuite(() => env);
});
