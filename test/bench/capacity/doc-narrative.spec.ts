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
    expect(broken(r)).toEqual(["the store's write rate is the first shared limit, then Redis's commands"]);
  });

  it('notice when 64 replicas with the defaults no longer reach the store’s limit', () => {
    const r = results();
    r.projection.scenarios.default_page_workers[3].saturates_first = 'crawler_replicas';
    expect(broken(r)).toEqual(["64 replicas with the defaults, and 16 and 64 with page workers raised, stop at the store's write rate"]);
  });

  it('notice when a page handed to another crawler no longer costs more CPU', () => {
    const r = results();
    r.summary.cluster_1.cpu_per_page['crawler-1'].net_ms = 1000;
    expect(broken(r)).toEqual(['a page handed to another crawler costs more CPU']);
  });
});
