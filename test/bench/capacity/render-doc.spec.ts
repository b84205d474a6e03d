import { committedResults as results } from './committed-results';
import { formatNumber } from './format-number';
import { renderCapacityDoc } from './render-doc';

describe('rendering docs/capacity.md', () => {
  it('writes the number at a path of the file, and leaves the rest of the template as it is', () => {
    const r = results();
    expect(
      renderCapacityDoc('{{summary.cluster_1.store.per_page.write_commands}} writes, {{projection.target.pages_per_day}} pages\n', r),
    ).toBe(
      `${formatNumber(r.summary.cluster_1.store.per_page.write_commands)} writes, ${formatNumber(r.projection.target.pages_per_day)} pages\n`,
    );
  });

  it('writes a derived figure by its name', () => {
    const r = results();
    expect(renderCapacityDoc('{{replica_counts}} replicas, {{cpu_target_pct}} %', r)).toBe(
      `1, 4, 16 and 64 replicas, ${Math.round(r.projection.inputs.assumed.cpu_target.value * 100)} %`,
    );
  });

  it('follows the file: another measured figure gives another guide', () => {
    const r = results();
    r.summary.cluster_1.redis.per_page.commands += 1.5;
    const template = '{{summary.cluster_1.redis.per_page.commands}}';
    expect(renderCapacityDoc(template, r)).not.toBe(renderCapacityDoc(template, results()));
    expect(renderCapacityDoc(template, r)).toBe(formatNumber(r.summary.cluster_1.redis.per_page.commands));
  });

  it('refuses a placeholder the file does not hold, naming it', () => {
    expect(() => renderCapacityDoc('{{summary.cluster_1.no_such_figure}}', results())).toThrow(
      'capacity.md.tmpl names {{summary.cluster_1.no_such_figure}}, which capacity.json does not hold',
    );
  });

  it('refuses a file that no longer supports a conclusion of the text, and says what to do', () => {
    const r = results();
    r.projection.shared_caps_pages_per_s.redis_commands = r.projection.shared_caps_pages_per_s.store_write_ops / 2;
    expect(() => renderCapacityDoc('', r)).toThrow(
      /no longer supports .*the store's write rate is the first shared limit.*npm run bench:capacity -- report/,
    );
  });
});
