import { join } from 'node:path';
import { TEST_CRASH_MARKER, TEST_HANG_MARKER } from '../../../test/test-app/content-test.worker';
import { ContentError } from './content-error';
import { ContentPool } from './content-pool';

/** The test app's worker: the production conversion plus the crash and hang hooks. */
const HOOKS = { workerFile: join(__dirname, '../../../test/test-app/content-test.worker.ts') };

describe('ContentPool', () => {
  let pool: ContentPool;

  beforeAll(() => {
    // The crash/hang hooks exist only in this pool's worker. A task's limit also covers starting its
    // worker (from source, through tsx): generous, for a machine busy with other work (a niced run there
    // can wait tens of seconds for a worker's start; jest's per-test limit is the hang guard).
    pool = new ContentPool({ threads: 2, taskTimeoutMs: 120_000, ...HOOKS });
  });

  afterAll(async () => {
    await pool.close();
  });

  it('converts in parallel with the same output as the synchronous converter', async () => {
    const inputs = Array.from({ length: 20 }, (_, i) => ({
      html: `<h1>Page ${i}</h1><p>Body of page ${i} with a <a href="/p/${i}">link</a> inside some running text.</p>`,
      url: 'https://pool.example/',
      mode: 'full' as const,
    }));
    const results = await Promise.all(inputs.map((input) => pool.convert(input)));
    results.forEach((result, i) => {
      expect(result.markdown).toBe(`# Page ${i}\n\nBody of page ${i} with a [link](https://pool.example/p/${i}) inside some running text.`);
      expect(result.links).toEqual([{ url: `https://pool.example/p/${i}`, text: 'link' }]);
    });
    expect(pool.threads).toBe(2);
  });

  it('fails a task that runs too long with a timeout ContentError and keeps working', async () => {
    // Its own pool: the hang task spins a core until the limit, which is kept short for that reason;
    // the limit still leaves room to start the replacement worker on a busy machine.
    const short = new ContentPool({ threads: 1, taskTimeoutMs: 5000, ...HOOKS });
    try {
      // The hang marker never finishes: only the pool's task limit can end this call.
      const error = await short.convert({ html: TEST_HANG_MARKER, url: 'https://pool.example/', mode: 'full' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ContentError);
      expect(error).toMatchObject({ reason: 'timeout', category: 'internal', retryable: true });
      // The pool replaces the worker; on a busy machine the start of the new one can itself take longer
      // than this pool's short limit, so "keeps working" is: a later task converts (within a few tries).
      let next: Awaited<ReturnType<ContentPool['convert']>> | null = null;
      for (let attempt = 0; attempt < 10 && next === null; attempt++) {
        next = await short.convert({ html: '<p>after timeout</p>', url: 'https://pool.example/', mode: 'main' }).catch((e: unknown) => {
          if (e instanceof ContentError && e.reason === 'timeout') return null;
          throw e;
        });
      }
      expect(next?.markdown).toBe('after timeout');
    } finally {
      await short.close();
    }
  });

  it('fails only the task whose worker crashed; the worker is replaced', async () => {
    const [crashed, healthy] = await Promise.allSettled([
      pool.convert({ html: TEST_CRASH_MARKER, url: 'https://pool.example/', mode: 'full' }),
      pool.convert({ html: '<p>neighbour</p>', url: 'https://pool.example/', mode: 'full' }),
    ]);
    expect(crashed.status).toBe('rejected');
    const reason = (crashed as PromiseRejectedResult).reason as ContentError;
    expect(reason).toBeInstanceOf(ContentError);
    expect(reason.reason).toBe('worker_crashed');
    expect(healthy).toMatchObject({ status: 'fulfilled', value: { markdown: 'neighbour' } });
    const results = await Promise.all(
      [1, 2, 3, 4].map((i) => pool.convert({ html: `<p>again ${i}</p>`, url: 'https://pool.example/', mode: 'full' })),
    );
    expect(results.map((r) => r.markdown)).toEqual(['again 1', 'again 2', 'again 3', 'again 4']);
  });

  it('rejects invalid input without involving a worker', async () => {
    await expect(pool.convert({ html: 5 as unknown as string, url: 'x', mode: 'full' })).rejects.toMatchObject({ reason: 'invalid_input' });
  });

  it('has no test hooks in its own worker, whatever the environment says', async () => {
    const plain = new ContentPool({ threads: 1, taskTimeoutMs: 120_000, env: { ...process.env, GLEANER_CONTENT_TEST_HOOKS: '1' } });
    try {
      const result = await plain.convert({ html: `${TEST_CRASH_MARKER}<p>still fine</p>`, url: 'https://pool.example/', mode: 'full' });
      expect(result.markdown).toBe('still fine');
    } finally {
      await plain.close();
    }
  });

  it('rejects work after close', async () => {
    const closing = new ContentPool({ threads: 1 });
    await closing.close();
    await expect(closing.convert({ html: '<p>x</p>', url: 'https://pool.example/', mode: 'full' })).rejects.toMatchObject({
      reason: 'pool_closed',
    });
  });
});
