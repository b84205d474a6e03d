import { AppError } from '@app/core';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { CrawlCloser, closeLeftovers } from './crawl-closer';
import { JobCounters } from './job-counters';

describe('CrawlCloser', () => {
  let f: OwnerFixture;
  let leftoversAnnounced: number;
  let counters: JobCounters;
  let closer: CrawlCloser;

  async function setUp(options: Parameters<typeof ownerFixture>[0] = {}) {
    f = await ownerFixture(options);
    leftoversAnnounced = 0;
    counters = new JobCounters(f.run, f.jobs, { emit: async () => true, statusData: () => ({}) }, f.repository);
    closer = new CrawlCloser(f.run, f.repository, f.jobs, counters, { announceLeftovers: async () => void leftoversAnnounced++ });
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
    for await (const e of f.repository.iterateMap({ userId: 'user_spec' }, f.run.jobId, {})) map.push([e.url, e.status, e.error_category]);
    expect(map).toEqual([
      ['http://shop.test/', 'completed', null],
      ['http://shop.test/never', 'skipped', 'max_pages'],
      ['http://shop.test/admitted-late', 'pending', null],
    ]);
    expect(leftoversAnnounced).toBe(1);
    expect(await f.repository.state(f.run.jobId)).toMatchObject({ finalized: true, skipped_by_reason: { max_pages: 1 } });
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ page_count: 1 });
  });

  it('at the cost cap, closes every pending entry as budget_exceeded and says so on the job', async () => {
    await setUp({ max_cost_usd: 1 });
    counters.restore(true);
    await f.pending('/', { status: 'completed', result_id: 'r', cost_usd: 1 });
    await f.pending('/a', { admitted: true, ticket: 2 });
    await closer.finish();
    expect(await f.jobs.findForWorker(f.run.jobId)).toMatchObject({ error_category: 'budget_exceeded', cost_usd: 1 });
    expect((await f.repository.state(f.run.jobId))?.skipped_by_reason).toEqual({ budget_exceeded: 1 });
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
    expect(await f.repository.countEntries(f.run.jobId, 'skipped')).toBe(2);
    expect(await f.repository.state(f.run.jobId)).toMatchObject({ finalized: true, skipped_by_reason: { cancelled: 2 } });
    expect((await f.jobs.findForWorker(f.run.jobId))?.page_count).toBe(1);
  });

  it('closeLeftovers (a crawl cancelled while no owner ran it) finalizes once', async () => {
    await setUp();
    await f.pending('/a', { status: 'running' });
    await closeLeftovers(f.repository, f.run.jobId, 'the crawl ended (cancelled)');
    const a = [];
    for await (const e of f.repository.iterateMap({ userId: 'user_spec' }, f.run.jobId, { status: 'skipped' })) a.push(e.error_message);
    expect(a).toEqual(['Not crawled: the crawl ended (cancelled).']);
    expect(await f.repository.markFinalized(f.run.jobId)).toBe(false);
  });
});
