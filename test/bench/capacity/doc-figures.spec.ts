import { committedResults as results } from './committed-results';
import { derivedFigures } from './doc-figures';
import { formatNumber } from './format-number';

describe('the figures docs/capacity.md derives from capacity.json', () => {
  it('are computed from the file alone', () => {
    const r = results();
    const cpu = r.summary.cluster_2.cpu_per_page;
    const crawlers = Object.keys(cpu).filter((k) => k.startsWith('crawler-'));
    expect(crawlers.length).toBe(2);
    const figures = derivedFigures(r);
    expect(figures.c2_crawler_ms).toBeCloseTo(
      crawlers.reduce((sum, k) => sum + cpu[k].net_ms, 0),
      2,
    );
    expect(figures.large_text_factor).toBe(r.runs.cluster_1_large.workload.pageBytes / r.runs.cluster_1.workload.pageBytes);
    expect(figures.cpu_target_pct).toBe(Math.round(r.projection.inputs.assumed.cpu_target.value * 100));
    expect(figures.replica_counts).toBe('1, 4, 16 and 64');
  });

  it('follow the file: another measured figure gives another derived figure', () => {
    const r = results();
    r.summary.cluster_1_large.model.prompt_tokens_o200k = r.summary.cluster_1.model.prompt_tokens_o200k * 5;
    expect(derivedFigures(r).large_token_factor).toBe(5);
  });

  it('write one projection row per replica count, naming what saturates first', () => {
    const r = results();
    const rows = String(derivedFigures(r).projection_rows).split('\n');
    expect(rows).toHaveLength(4);
    const [a, b] = [r.projection.scenarios.default_page_workers[0], r.projection.scenarios.page_workers_raised[0]];
    const rate = (s: { projected_pages_per_s: number; pages_per_day: number }) =>
      `${formatNumber(s.projected_pages_per_s)} (${formatNumber(s.pages_per_day)})`;
    expect(rows[0]).toBe(`| 1 | ${rate(a)} | crawler replicas | ${rate(b)} | crawler replicas |`);
  });

  it('write a share assumption as a percentage and a published figure with its unit', () => {
    const r = results();
    const figures = derivedFigures(r);
    expect(String(figures.assumed_rows)).toContain(
      `| \`cpu_target\` | ${Math.round(r.projection.inputs.assumed.cpu_target.value * 100)} % of a core |`,
    );
    const redis = r.projection.inputs.published.redis_commands_per_s_vm;
    expect(String(figures.published_rows)).toContain(`| ${formatNumber(redis.value)} commands/s | ${redis.source} |`);
  });

  it('refuse a file missing a run they read', () => {
    const r = results();
    delete r.summary.cluster_1_large;
    expect(() => derivedFigures(r)).toThrow('capacity.json has no number at summary.cluster_1_large');
  });

  it('refuse a projection over other replica counts than the text walks through', () => {
    const r = results();
    r.projection.scenarios.page_workers_raised[3].replicas = 32;
    expect(() => derivedFigures(r)).toThrow('capacity.md.tmpl walks through 1, 4, 16, 64 replicas; capacity.json projects 1, 4, 16, 32');
  });
});
