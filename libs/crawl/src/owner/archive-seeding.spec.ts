import { canonicalize } from '../url-canon';
import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import type { ArchiveSource } from '../crawl-input';
import { ArchiveSeeding } from './archive-seeding';
import { Frontier } from './frontier';

describe("ArchiveSeeding (a re-extraction's pages into the frontier)", () => {
  let f: OwnerFixture;
  afterEach(() => f.close());

  const frontierOf = (fixture: OwnerFixture) =>
    new Frontier(
      fixture.run,
      fixture.repository,
      { has: () => false },
      { admissionClosed: () => false, onWindowEntry: () => undefined, onQueued: () => undefined },
    );

  async function entries() {
    const out: Array<{ url: string; key: string; via: string; list_index?: number; depth: number }> = [];
    for await (const e of f.repository.map.iterateMap({ userId: 'user_spec' }, f.run.jobId, {}))
      out.push({ url: e.url, key: e.key, via: e.via, list_index: e.list_index, depth: e.depth });
    return out;
  }

  it('a one-page source (an extract): its page is the list, under the key a crawl gives its URL; seeding is then done', async () => {
    const source: ArchiveSource = {
      kind: 'archive',
      source_job_id: 'j_extract',
      only: 'all',
      pages: 1,
      single_page: { url: 'http://Shop.test:80/p/1#top', key: 'single' },
    };
    f = await ownerFixture({ max_depth: 0, max_pages: 1, same_domain_only: false }, 'http://shop.test/p/1', { source });
    const seeding = new ArchiveSeeding(f.run, source, f.repository, frontierOf(f));
    await seeding.ingest();
    await seeding.settled();
    expect(seeding.busy).toBe(false);
    const canonical = canonicalize('http://shop.test/p/1')!;
    expect(await entries()).toEqual([{ url: canonical.url, key: canonical.key, via: 'list', list_index: 0, depth: 0 }]);
    expect(await f.repository.states.state(f.run.jobId)).toMatchObject({ seed_done: true });

    // A second ingest (a new owner once seeding was recorded done) adds nothing.
    await new ArchiveSeeding(f.run, source, f.repository, frontierOf(f)).ingest();
    expect(await entries()).toHaveLength(1);
  });
});
