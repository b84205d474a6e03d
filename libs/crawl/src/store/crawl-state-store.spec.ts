import { crawlStoreFixture, type CrawlStoreFixture } from '../../../../test/support/crawl-store';
import { CrawlStateStore } from './crawl-state-store';

/**
 * A crawl's state on the real (SQLite) store: the lease (LeaseStore), the seeding's flags (SeedingStore),
 * the counters' fenced writes and the closer's unfenced ones. Tickets have their own suite on both stores
 * (test/integration/crawl-tickets.int-spec.ts).
 */
describe('CrawlStateStore', () => {
  let f: CrawlStoreFixture;
  let states: CrawlStateStore;

  beforeEach(async () => {
    f = await crawlStoreFixture();
    states = new CrawlStateStore(f.collections.states);
  });

  afterEach(() => f.close());

  it('one state per crawl, nothing done yet, owned by no one', async () => {
    await states.ensureState('job1', 'u1');
    await states.updateState('job1', 0, { $set: { seed_done: true } });
    await states.ensureState('job1', 'u1'); // twice: the first stays
    expect(await states.state('job1')).toMatchObject({
      job_id: 'job1',
      user_id: 'u1',
      owner: null,
      epoch: 0,
      admitted: 0,
      seed_done: true,
      finalized: false,
    });
    expect(await states.state('job-none')).toBeNull();
  });

  it('one owner at a time: the lease moves the epoch on, a stale epoch can neither renew nor update', async () => {
    await states.ensureState('job1', 'u1');
    const first = await states.acquire('job1', 'w1', 10_000, 1_000);
    expect(first).toMatchObject({ epoch: 0 });
    expect(await states.acquire('job1', 'w2', 10_000, 2_000)).toBeNull(); // held
    expect(await states.acquire('job1', 'w1', 10_000, 2_000)).toMatchObject({ epoch: 1, owner: 'w1' }); // its own: again
    expect(await states.renew('job1', 2, 10_000, 3_000)).toBe(true);
    // The lease ran out: another worker takes the crawl over, the first is stale.
    expect(await states.acquire('job1', 'w2', 10_000, 20_000)).toMatchObject({ epoch: 2 });
    expect(await states.renew('job1', 2, 10_000, 21_000)).toBe(false);
    expect(await states.updateState('job1', 2, { $set: { seed_done: true } })).toBe(false);
    expect(await states.updateState('job1', 3, { $set: { seed_done: true }, $inc: { 'skipped_by_reason.robots': 2 } })).toBe(true);
    expect(await states.state('job1')).toMatchObject({ epoch: 3, owner: 'w2', seed_done: true, skipped_by_reason: { robots: 2 } });
  });

  it('a released crawl can be taken at once; a stale release frees nothing', async () => {
    await states.ensureState('job2', 'u1');
    await states.acquire('job2', 'w1', 60_000, 1_000);
    await states.release('job2', 0); // stale epoch
    expect(await states.acquire('job2', 'w2', 60_000, 2_000)).toBeNull();
    await states.release('job2', 1);
    expect(await states.state('job2')).toMatchObject({ owner: null, lease_until: '' });
    expect(await states.acquire('job2', 'w2', 60_000, 2_000)).toMatchObject({ epoch: 1 });
  });

  it('reserves tickets up to the maximum, only for the owner of the epoch', async () => {
    await states.ensureState('job3', 'u1');
    await states.acquire('job3', 'w1', 60_000, 1_000);
    expect(await states.reserveTickets('job3', 1, 3, 5)).toBe(true);
    expect(await states.reserveTickets('job3', 1, 3, 5)).toBe(false); // 2 left
    expect(await states.reserveTickets('job3', 2, 2, 5)).toBe(false); // stale
    expect(await states.reserveTickets('job3', 1, 2, 5)).toBe(true);
    expect((await states.state('job3'))?.admitted).toBe(5);
  });

  it('keeps the first sealed secrets until the crawl is finalized, once; bumps and deletes unfenced', async () => {
    await states.ensureState('job4', 'u1');
    await states.keepSecrets('job4', 'sealed-1');
    await states.keepSecrets('job4', 'sealed-2');
    expect((await states.state('job4'))?.sealed_secrets).toBe('sealed-1');
    await states.bumpState('job4', { $inc: { 'skipped_by_reason.cancelled': 3 } });
    expect(await states.markFinalized('job4')).toBe(true);
    expect(await states.markFinalized('job4')).toBe(false);
    const finalized = await states.state('job4');
    expect(finalized).toMatchObject({ finalized: true, skipped_by_reason: { cancelled: 3 } });
    expect(finalized?.sealed_secrets).toBeUndefined();
    await states.keepSecrets('job4', 'sealed-3'); // finalized: not kept
    expect((await states.state('job4'))?.sealed_secrets).toBeUndefined();
    await states.deleteState('job4');
    expect(await states.state('job4')).toBeNull();
  });
});
