import { JobYieldedError } from '@app/jobs';
import { LEASE_MS, WORKER, ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { CrawlLease, type LeaseStore } from './crawl-lease';

describe('CrawlLease', () => {
  let f: OwnerFixture;
  let now: number;
  let renewFails: boolean;
  let store: LeaseStore;

  beforeEach(async () => {
    f = await ownerFixture();
    now = Date.now();
    renewFails = false;
    store = {
      acquire: (...args) => f.repository.states.acquire(...args),
      release: (...args) => f.repository.states.release(...args),
      renew: (...args) => (renewFails ? Promise.reject(new Error('store down')) : f.repository.states.renew(...args)),
    };
  });
  afterEach(() => f.close());

  function lease(options: { leaseMs?: number; jobEnded?: () => Promise<boolean> } = {}) {
    let takeovers = 0;
    const l = new CrawlLease(f.run, store, {
      workerId: WORKER,
      leaseMs: options.leaseMs ?? LEASE_MS,
      jobEnded: options.jobEnded ?? (async () => false),
      onTakeover: () => takeovers++,
      now: () => now,
    });
    return { lease: l, takeovers: () => takeovers };
  }

  /** Another worker takes the crawl at `at` (the lease it found must have run out by then). */
  const takenAt = (at: number) => f.repository.states.acquire(f.run.jobId, 'worker-other', LEASE_MS, at);

  it('takes the lease with the next epoch, counting a takeover from another owner', async () => {
    expect(await takenAt(now + 2 * LEASE_MS)).not.toBeNull(); // epoch 2
    now += 4 * LEASE_MS; // the other owner died
    const { lease: l, takeovers } = lease();
    const before = await l.acquire();
    l.stopHeartbeat();
    expect(before).toMatchObject({ epoch: 2, owner: 'worker-other' });
    expect(f.run.epoch).toBe(3);
    expect(takeovers()).toBe(1);
  });

  it('yields when a live owner keeps the crawl, and gives up at once when the job ended', async () => {
    await takenAt(now + 2 * LEASE_MS);
    const waiting = lease({
      leaseMs: 20,
      jobEnded: async () => {
        now += 1000; // each look at the job is a second later: the wait runs out after a few
        return false;
      },
    });
    await expect(waiting.lease.acquire()).rejects.toBeInstanceOf(JobYieldedError);
    expect(await lease({ jobEnded: async () => true }).lease.acquire()).toBeNull();
  });

  it('trusts its lease without asking the store, and asks once past it (less the clock margin)', async () => {
    const { lease: l } = lease();
    await l.acquire();
    l.stopHeartbeat();
    await takenAt(now + LEASE_MS + 1); // another owner, once our lease ran out in its view
    now += LEASE_MS - 1000; // inside our lease, less the 1 s margin: still trusted
    expect(await l.holds()).toBe(true);
    expect(f.halts).toEqual([]);
    now += 1; // past it: the store says another owner has the crawl
    expect(await l.holds()).toBe(false);
    expect(f.halts).toEqual(['lease-lost']);
  });

  it('a renewal past the trusted lease extends it when the epoch is still ours', async () => {
    const { lease: l } = lease();
    await l.acquire();
    l.stopHeartbeat();
    now += LEASE_MS; // a late heartbeat on a busy machine
    expect(await l.holds()).toBe(true);
    now += LEASE_MS - 1000;
    expect(await l.holds()).toBe(true);
    expect(f.halts).toEqual([]);
  });

  it('a heartbeat refused by the store halts the run; a store error halts only past the lease', async () => {
    const { lease: l } = lease();
    await l.acquire();
    l.stopHeartbeat();
    renewFails = true;
    await l.heartbeat();
    expect(f.halts).toEqual([]);
    now += LEASE_MS;
    await l.heartbeat();
    expect(f.halts).toEqual(['lease-lost']);
  });

  it('a heartbeat after another owner took over halts the run', async () => {
    const { lease: l } = lease();
    await l.acquire();
    l.stopHeartbeat();
    await takenAt(now + 2 * LEASE_MS);
    await l.heartbeat();
    expect(f.halts).toEqual(['lease-lost']);
  });

  it('confirm() renews now; a store error is thrown for the caller to retry, not taken for a lost lease', async () => {
    const { lease: l } = lease();
    await l.acquire();
    l.stopHeartbeat();
    expect(await l.confirm()).toBe(true);
    renewFails = true;
    await expect(l.confirm()).rejects.toThrow('store down');
    expect(f.halts).toEqual([]);
    renewFails = false;
    await takenAt(now + 2 * LEASE_MS);
    expect(await l.confirm()).toBe(false);
    expect(f.halts).toEqual(['lease-lost']);
  });

  it('releases the crawl at once (a shutdown hand-back): another worker takes it without waiting', async () => {
    const { lease: l } = lease();
    await l.acquire();
    await l.release();
    expect(await f.repository.states.acquire(f.run.jobId, 'worker-next', LEASE_MS, now)).not.toBeNull();
  });
});
