import { ASSUMED, PUBLISHED, project } from './projection';

/** A summary shaped like summary.ts writes it, with round numbers. */
function summary(overrides: { crawlerMainMs?: number; writes?: number; docs?: number; redisCommands?: number } = {}) {
  // Each crawler of a run gets an equal share of the page's crawler CPU (20 ms, 14 ms of it on main threads).
  const crawlerCpu = (crawlers: number) =>
    Object.fromEntries(
      Array.from({ length: crawlers }, (_, i) => [
        `crawler-${i + 1}`,
        { net_ms: 20 / crawlers, main_thread_net_ms: (overrides.crawlerMainMs ?? 14) / crawlers },
      ]),
    );
  const cluster = (crawlers: number, housekeeping: number, redisIdle: number) => ({
    crawlers,
    cpu_per_page: { api: { net_ms: 1 }, ...crawlerCpu(crawlers), redis: { net_ms: 0.5 } },
    store: {
      per_page: { commands: 20, write_commands: overrides.writes ?? 14, docs_written: overrides.docs ?? 15, write_request_bytes: 10_000 },
      by_area: { archive: { write_commands: 6, docs_written: 6 } },
      idle_per_s: { driver_housekeeping_commands: housekeeping },
    },
    redis: { per_page: { commands: overrides.redisCommands ?? 50 }, idle_per_s: { commands: redisIdle } },
    model: { calls: 1, prompt_tokens_o200k: 1000, reported_output_tokens: 20 },
  });
  return { cluster_1: cluster(1, 1, 6), cluster_2: cluster(2, 1.5, 10) };
}

describe('the capacity projection', () => {
  it('bounds a replica by its main thread or by page workers over the page wait', () => {
    const p = project(summary());
    expect(p.inputs.measured.crawler_main_thread_ms_per_page).toEqual({
      value: 14,
      from: 'summary.cluster_2.cpu_per_page.crawler-1.main_thread_net_ms + summary.cluster_2.cpu_per_page.crawler-2.main_thread_net_ms',
    });
    const mainCap = (ASSUMED.cpu_target.value * 1000) / 14;
    expect(p.per_replica.cpu_cap_pages_per_s).toBeCloseTo(mainCap, 1);
    expect(p.per_replica.latency_cap_default_workers_pages_per_s).toBe(ASSUMED.page_workers_default.value / ASSUMED.page_wait_s.value);
    expect(p.per_replica.page_workers_to_reach_cpu_cap).toBe(Math.ceil(mainCap * ASSUMED.page_wait_s.value));
  });

  it("prices a page's store and Redis commands as in a cluster of several crawlers (the 2-crawler run)", () => {
    const s = summary();
    s.cluster_2.store.per_page.write_commands = 16;
    const p = project(s);
    expect(p.inputs.measured.store_write_commands_per_page).toEqual({ value: 16, from: 'summary.cluster_2.store.per_page.write_commands' });
    expect(p.inputs.measured.redis_commands_per_page.from).toBe('summary.cluster_2.redis.per_page.commands');
    expect(project({ cluster_1: s.cluster_1 }).inputs.measured.store_write_commands_per_page.value).toBe(14);
  });

  it('takes the per-replica background from the difference of the 1- and 2-crawler clusters', () => {
    const p = project(summary());
    expect(p.inputs.measured.redis_background_commands_per_s_per_replica).toEqual({
      value: 4,
      from: 'summary.cluster_2.redis.idle_per_s.commands − summary.cluster_1.redis.idle_per_s.commands',
    });
  });

  it('names the first resource to saturate as replicas are added', () => {
    const p = project(summary());
    const raised = p.scenarios.page_workers_raised;
    expect(raised.map((s: { replicas: number }) => s.replicas)).toEqual([1, 4, 16, 64]);
    expect(raised[0].saturates_first).toBe('crawler_replicas');
    // Priced per command and per document, fitted to the published 1- and 1,000-document figures.
    const perDoc = 1 / PUBLISHED.mongo_batched_writes_per_s.value;
    const perCommand = 1 / PUBLISHED.mongo_single_doc_writes_per_s.value - perDoc;
    const storeCap = ASSUMED.store_target.value / (14 * perCommand + 15 * perDoc);
    expect(raised[3].saturates_first).toBe('store_write_ops');
    expect(raised[3].projected_pages_per_s).toBeCloseTo(storeCap, 1);
    expect(raised[3].saturates_next).toBe('redis_commands');
    // A command of one document costs what the single-document figure says.
    expect(ASSUMED.store_target.value / (perCommand + perDoc)).toBeCloseTo(
      PUBLISHED.mongo_single_doc_writes_per_s.value * ASSUMED.store_target.value,
      6,
    );
    // Without the archive's 6 writes (6 documents) a page leaves 8 writes of 9 documents.
    expect(p.shared_caps_pages_per_s.store_write_ops_archive_off).toBeCloseTo(
      ASSUMED.store_target.value / (8 * perCommand + 9 * perDoc),
      0,
    );
    // The same documents in fewer commands: the store allows more pages.
    const batched = project(summary({ writes: 3, docs: 15 })).shared_caps_pages_per_s.store_write_ops;
    expect(batched).toBeCloseTo(ASSUMED.store_target.value / (3 * perCommand + 15 * perDoc), 0);
    expect(batched).toBeGreaterThan(storeCap * 2);
    // Fewer store writes per page and Redis becomes the limit instead.
    const redisBound = project(summary({ writes: 1, redisCommands: 400 })).scenarios.page_workers_raised[3];
    expect(redisBound.saturates_first).toBe('redis_commands');
  });

  it('says how many replicas a million pages a day needs, with and without raised page workers', () => {
    const p = project(summary());
    const target = 1_000_000 / 86_400;
    expect(p.target.replicas_default_page_workers).toBe(Math.ceil(target / 4));
    expect(p.target.replicas_page_workers_raised).toBe(Math.ceil(target / p.per_replica.cpu_cap_pages_per_s) || 1);
    expect(p.target.model_tokens_per_day).toBe(1_000_000 * 1020);
  });

  it('refuses a summary that lacks a measured input instead of projecting from nothing', () => {
    const broken = summary();
    delete (broken.cluster_2.store.per_page as Record<string, unknown>).write_commands;
    expect(() => project(broken)).toThrow(/store\.per_page\.write_commands is missing/);
    expect(project({})).toEqual({ note: 'run cluster_1 (and cluster_2) first' });
  });
});
