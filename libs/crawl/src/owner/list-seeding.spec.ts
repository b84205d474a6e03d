import { LIST_CHUNK_SIZE } from '../crawl.types';
import { LEASE_MS, ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { Frontier } from './frontier';
import { ListSeeding } from './list-seeding';

describe('ListSeeding (a batch URL list into the frontier)', () => {
  let f: OwnerFixture;
  const urls = (n: number) => Array.from({ length: n }, (_, i) => `http://h${i % 7}.test/p/${i}`);
  afterEach(() => f.close());

  async function setUp(count: number) {
    const source = { kind: 'list' as const, list_id: `list_spec_${count}`, urls: count, duplicates: 0 };
    f = await ownerFixture({ max_depth: 0, max_pages: count, same_domain_only: false }, urls(1)[0], { source });
    await f.repository.lists.storeList(source.list_id, 'user_spec', urls(count));
    const frontier = new Frontier(
      f.run,
      f.repository,
      { has: () => false },
      {
        admissionClosed: () => false,
        onWindowEntry: () => undefined,
        onQueued: () => undefined,
      },
    );
    return { source, frontier, seeding: new ListSeeding(f.run, source, f.repository, frontier) };
  }

  async function entries() {
    const out: Array<{ url: string; via: string; list_index?: number; depth: number }> = [];
    for await (const e of f.repository.map.iterateMap({ userId: 'user_spec' }, f.run.jobId, {}))
      out.push({ url: e.url, via: e.via, list_index: e.list_index, depth: e.depth });
    return out;
  }

  it('stores the first chunk before the crawl starts and the rest in the background, in list order, then drops the list', async () => {
    const count = LIST_CHUNK_SIZE * 2 + 5;
    const { source, seeding } = await setUp(count);
    await seeding.ingest();
    expect((await entries()).length).toBeGreaterThanOrEqual(LIST_CHUNK_SIZE);
    await seeding.settled();
    expect(seeding.busy).toBe(false);
    const all = await entries();
    expect(all).toHaveLength(count);
    expect(all.map((e) => e.url)).toEqual(urls(count));
    expect(all.every((e, i) => e.via === 'list' && e.list_index === i && e.depth === 0)).toBe(true);
    expect(await f.repository.states.state(f.run.jobId)).toMatchObject({ seed_done: true, list_chunks_done: 3 });
    expect(await f.repository.lists.listChunk(source.list_id, 0)).toBeNull();
  });

  it('a new owner goes on from the first chunk not recorded; a chunk stored twice adds nothing', async () => {
    const count = LIST_CHUNK_SIZE + 10;
    const { source, frontier } = await setUp(count);
    // The first owner stored chunk 0 and died before recording it.
    await frontier.offerListUrls((await f.repository.lists.listChunk(source.list_id, 0))!.urls, 0);
    await f.takeOver();
    // Well past the lease takeOver set (its now + 3 leases): a clock still on the same millisecond cannot find it held.
    const next = await f.repository.states.acquire(f.run.jobId, 'worker-next', LEASE_MS, Date.now() + 10 * LEASE_MS);
    f.run.epoch = next!.epoch + 1;
    const restored = new Frontier(
      f.run,
      f.repository,
      { has: () => false },
      {
        admissionClosed: () => false,
        onWindowEntry: () => undefined,
        onQueued: () => undefined,
      },
    );
    await restored.restore(0);
    const seeding = new ListSeeding(f.run, source, f.repository, restored);
    await seeding.ingest();
    await seeding.settled();
    const all = await entries();
    expect(all).toHaveLength(count);
    expect(new Set(all.map((e) => e.url)).size).toBe(count);
  });

  it('a stale owner stops at its next chunk record (fenced by the epoch)', async () => {
    const { seeding } = await setUp(LIST_CHUNK_SIZE + 1);
    await f.takeOver();
    await expect(seeding.ingest()).rejects.toMatchObject({ why: 'lease-lost' });
    expect(f.halts).toEqual(['lease-lost']);
  });

  it('follows no link of a listed page', async () => {
    const { frontier, seeding } = await setUp(2);
    await seeding.ingest();
    await seeding.settled();
    const [first] = await entries();
    await frontier.offerLinks({ ...(await f.pending(first.url)), depth: 0 }, ['http://h0.test/elsewhere'], first.url);
    expect((await entries()).map((e) => e.url)).toEqual(urls(2));
  });
});
