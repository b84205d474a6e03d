/**
 * kill -9 of the embedded process while it acknowledges writes: after a restart on the same
 * DATA_DIR every acknowledged key and job is there, and interrupted jobs run to completion.
 */
import { http, tempDir, waitFor } from './helpers';
import { TEST_API_MAIN, assertBuilt, startProcess } from './processes';

jest.setTimeout(120_000);

const KEY = 'glk_' + 'K'.repeat(20) + 'k'.repeat(20);

describe('embedded process crash and restart', () => {
  beforeAll(() => assertBuilt());

  it('keeps every acknowledged write across kill -9 and finishes interrupted jobs', async () => {
    const dataDir = tempDir('gleaner-crash-');
    const env = {
      DATA_DIR: dataDir,
      GLEANER_BOOTSTRAP_KEY: KEY,
      GLEANER_QUEUE_STALLED_MS: '1000',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
    };
    const first = await startProcess('embedded-1', TEST_API_MAIN, [], env, 'PORT');
    const ackedKeys: string[] = [];
    const ackedJobs: string[] = [];
    let stop = false;
    const writer = async (kind: 'key' | 'job') => {
      while (!stop) {
        try {
          if (kind === 'key') {
            const res = await http(first.url, 'POST', '/api/v1/keys', { key: KEY, body: { name: `k${ackedKeys.length}` } });
            if (res.status === 201) ackedKeys.push(res.body.id);
          } else {
            const res = await http(first.url, 'POST', '/api/v1/test-jobs', { key: KEY, body: { steps: 3, step_ms: 100 } });
            if (res.status === 201) ackedJobs.push(res.body.id);
          }
        } catch {
          return; // connection reset by the kill
        }
      }
    };
    const writers = [writer('key'), writer('key'), writer('job'), writer('job')];
    await waitFor(async () => ackedKeys.length >= 100 && ackedJobs.length >= 20, 30_000, 20);
    first.child.kill('SIGKILL');
    stop = true;
    await first.exited;
    await Promise.all(writers);

    const second = await startProcess('embedded-2', TEST_API_MAIN, [], env, 'PORT');
    try {
      const keys = await http(second.url, 'GET', '/api/v1/keys', { key: KEY });
      const keyIds = new Set(keys.body.keys.map((k: { id: string }) => k.id));
      const missingKeys = ackedKeys.filter((id) => !keyIds.has(id));
      expect(missingKeys).toEqual([]);
      for (const id of ackedJobs) {
        const job = await http(second.url, 'GET', `/api/v1/jobs/${id}`, { key: KEY });
        expect(job.status).toBe(200);
      }
      // Jobs that were pending or running at the kill are picked up again and complete.
      await waitFor(
        async () => {
          const states = await Promise.all(
            ackedJobs.map(async (id) => (await http(second.url, 'GET', `/api/v1/jobs/${id}`, { key: KEY })).body.status),
          );
          return states.every((s) => s === 'completed');
        },
        90_000,
        500,
      );
      const one = await http(second.url, 'GET', `/api/v1/jobs/${ackedJobs[ackedJobs.length - 1]}`, { key: KEY });
      expect(one.body.page_count).toBe(3);
      expect(second.output()).not.toContain(KEY);
    } finally {
      const code = await second.stop('SIGTERM');
      expect(code).toBe(0);
    }
  });
});
