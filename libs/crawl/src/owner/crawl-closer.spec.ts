import { AppError } from '@app/core';
import type { RecordResultInput, ResultRecord } from '@app/results';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { CrawlCloser, closeLeftovers } from './crawl-closer';
import { JobCounters } from './job-counters';

describe('CrawlCloser', () => {
  let f: OwnerFixture;
  let leftoversAnnounced: number;
  let counters: JobCounters;
  let closer: CrawlCloser;
  /** Page results by `_id` (`<job>:p:<key>`), stored once each as ResultStore.storePage does. */
  let results: Map<string, ResultRecord>;
  const resultStore = {
    storePage: async (job: { _id: string }, key: string, input: RecordResultInput) => {
      const id = `${job._id}:p:${key}`;
      const record = results.get(id) ?? ({ ...input, _id: id, id: `res_${results.size + 1}`, job_id: job._id } as unknown as ResultRecord);
      results.set(id, record);
      return record;
    },
    pageRecord: async (job: { _id: string }, key: string) => results.get(`${job._id}:p:${key}`) ?? null,
  };

  async function setUp(options: Parameters<typeof ownerFixture>[0] = {}) {
    f = await ownerFixture(options);
    leftoversAnnounced = 0;
    results = new Map();
    counters = new JobCounters(f.run, f.jobs, { storeDrawn: async () => undefined, statusData: () => ({}) }, f.repository);
    closer = new CrawlCloser(
      f.run,
      f.repository,
      f.jobs,
      counters,
      { announceLeftovers: async () => void leftoversAnnounced++ },
      resultStore,
    );
  }
  afterEach(() => {
    counters.close();
    return f.close();
  });
  const seedId = () => `${f.run.jobId}:${f.run.seed.key}`;

  it('closes the entries never crawled as max_pages, recounts for good and finalizes', async () => {
    await setUp();
    await f.pending('/', { status: 'completed', result_id: 'r', admitted: true, ticket: 1 });
    await f.pending('/never');
    await f.pending('/admitted-late', { admitted: true, ticket: 2 }); // admitted: not a max_pages skip
    await closer.finish();
    const map = [];
    for await (const e of f.repository.map.iterateMap({ userId: 'user_spec' }, f.run.jobId, {}))
      map.push([e.url, e.status, e.error_category]);
    expect(map).toEqual([
      ['http://shop.test/', 'completed', null],
      ['http://shop.test/never', 'skipped', 'max_pages'],
      ['http://shop.test/admitted-late', 'pending', null],
    ]);
    expect(leftoversAnnounced).toBe(1);
    expect(await f.repository.states.state(f.run.jobId)).toMatchObject({ finalized: true, skipped_by_reason: { max_pages: 1 } });
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ page_count: 1 });
  });

  it("copy_duplicates: a duplicate whose original completed gets a copy of the original's result, once", async () => {
    await setUp({ copy_duplicates: true });
    const original = await f.pending('/', { status: 'completed', result_id: 'res_0', admitted: true, ticket: 1 });
    await resultStore.storePage(f.run.job, original.key, {
      url: original.url,
      status: 'completed',
      data: { title: 'Book' },
      token_usage_input: 100,
      cost_usd: 0.01,
      metadata: { method: 'model' },
    });
    const failed = await f.pending('/failed', { status: 'failed', admitted: true, ticket: 2 });
    const duplicate = (path: string, of: { url: string; key: string }, reason: 'exact' | 'near' | 'canonical') =>
      f.pending(path, {
        status: 'skipped',
        error_category: 'duplicate',
        duplicate_of: of.url,
        duplicate_key: of.key,
        duplicate_reason: reason,
      });
    const copy = await duplicate('/?utm_source=x', original, 'exact');
    const canonical = await duplicate('/print', original, 'canonical');
    const ofFailed = await duplicate('/failed-copy', failed, 'near');
    await f.pending('/deep', { status: 'skipped', error_category: 'max_depth' });
    await closer.finish();
    expect(results.get(`${f.run.jobId}:p:${copy.key}`)).toMatchObject({
      url: copy.url,
      status: 'completed',
      data: { title: 'Book' },
      metadata: { method: 'model', duplicate_of: original.url },
    });
    // A copy costs nothing: no tokens, no cost of its own.
    expect(results.get(`${f.run.jobId}:p:${copy.key}`)).not.toHaveProperty('cost_usd');
    expect(results.get(`${f.run.jobId}:p:${canonical.key}`)).toMatchObject({ url: canonical.url, data: { title: 'Book' } });
    // An original without a completed result has nothing to copy; other skips are not duplicates.
    expect(results.has(`${f.run.jobId}:p:${ofFailed.key}`)).toBe(false);
    expect(results.size).toBe(3);
    // The crawl map links the copy; the job still counts one page.
    expect(await f.repository.entries.entry(copy.id)).toMatchObject({
      status: 'skipped',
      result_id: results.get(`${f.run.jobId}:p:${copy.key}`)!.id,
    });
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(1);
    // A finish run again (a takeover) adds nothing.
    await closer.finish();
    expect(results.size).toBe(3);
  });

  it('without copy_duplicates, a duplicate has no result of its own', async () => {
    await setUp();
    const original = await f.pending('/', { status: 'completed', admitted: true, ticket: 1 });
    await resultStore.storePage(f.run.job, original.key, { url: original.url, status: 'completed', data: {} });
    await f.pending('/copy', {
      status: 'skipped',
      error_category: 'duplicate',
      duplicate_of: original.url,
      duplicate_key: original.key,
      duplicate_reason: 'exact',
    });
    await closer.finish();
    expect(results.size).toBe(1);
  });

  it('at the cost cap, closes every pending entry as budget_exceeded and says so on the job', async () => {
    await setUp({ max_cost_usd: 1 });
    counters.restore(true);
    await f.pending('/', { status: 'completed', result_id: 'r', cost_usd: 1 });
    await f.pending('/a', { admitted: true, ticket: 2 });
    await closer.finish();
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ error_category: 'budget_exceeded', cost_usd: 1 });
    expect((await f.repository.states.state(f.run.jobId))?.skipped_by_reason).toEqual({ budget_exceeded: 1 });
  });

  it('fails the crawl with the seed’s own error when every page failed', async () => {
    await setUp();
    const seed = await f.pending('/', { status: 'failed', error_category: 'http_error', error_message: 'HTTP 503' });
    expect(seed.id).toBe(seedId());
    await expect(closer.finish()).rejects.toMatchObject({ category: 'http_error', message: 'The crawl produced no page: HTTP 503' });
  });

  it('fails the crawl as robots_disallowed when robots.txt kept the seed out', async () => {
    await setUp();
    await f.pending('/', { status: 'skipped', error_category: 'robots', error_message: 'Not crawled: robots.txt disallows it.' });
    const error = await closer.finish().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ category: 'robots_disallowed' });
  });

  it('a cancel closes everything left open as cancelled, with exact counters on the terminal job', async () => {
    await setUp();
    await f.pending('/', { status: 'completed', result_id: 'r' });
    await f.pending('/a', { status: 'running', admitted: true, ticket: 1 });
    await f.pending('/b');
    await f.jobs.transition(f.run.jobId, 'cancelled');
    await closer.cancelled();
    expect(await f.repository.map.countEntries(f.run.jobId, 'skipped')).toBe(2);
    expect(await f.repository.states.state(f.run.jobId)).toMatchObject({ finalized: true, skipped_by_reason: { cancelled: 2 } });
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(1);
  });

  it('closeLeftovers (a crawl cancelled while no owner ran it) finalizes once', async () => {
    await setUp();
    await f.pending('/a', { status: 'running' });
    await closeLeftovers(f.repository, f.run.jobId, 'the crawl ended (cancelled)');
    const a = [];
    for await (const e of f.repository.map.iterateMap({ userId: 'user_spec' }, f.run.jobId, { status: 'skipped' })) a.push(e.error_message);
    expect(a).toEqual(['Not crawled: the crawl ended (cancelled).']);
    expect(await f.repository.states.markFinalized(f.run.jobId)).toBe(false);
  });
});
