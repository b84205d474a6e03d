import { committedResults as results } from './committed-results';
import { derivedFigures } from './doc-figures';
import { narrative } from './doc-narrative';

const broken = (r: ReturnType<typeof results>) =>
  narrative(r, derivedFigures(r))
    .filter((claim) => !claim.holds)
    .map((claim) => claim.says);

describe('the conclusions of docs/capacity.md', () => {
  it('all hold for the committed capacity.json', () => {
    expect(broken(results())).toEqual([]);
  });

  it('notice when Redis, not the store, becomes the first shared limit', () => {
    const r = results();
    r.projection.shared_caps_pages_per_s.redis_commands = r.projection.shared_caps_pages_per_s.store_write_ops / 2;
    expect(broken(r)).toEqual(["the store's write rate is the first shared limit, then Redis (its command rate or its CPU)"]);
  });

  it('notice when a row past the replicas that reach the store’s limit does not stop there', () => {
    const r = results();
    r.projection.scenarios.page_workers_raised[3].saturates_first = 'crawler_replicas';
    expect(broken(r)).toEqual(["past the replica counts the guide computes, the projection's rows stop at the store's write rate"]);
  });

  it('notice when a page handed to another crawler no longer costs more CPU', () => {
    const r = results();
    r.summary.cluster_1.cpu_per_page['crawler-1'].net_ms = 1000;
    expect(broken(r)).toEqual(['a page handed to another crawler costs more CPU']);
  });
});
