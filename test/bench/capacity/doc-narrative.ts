/**
 * What the prose of docs/capacity.md concludes from the numbers ("the store's write rate saturates first"):
 * rendering fails when bench-results/capacity.json no longer supports one (render-doc.ts), so a re-run that
 * changes the story asks for the text to change instead of printing it wrong.
 */
import { num, scenarios, type CapacityResults } from './doc-figures';

/** What the template's prose concludes from the numbers; each must still hold for the file being rendered. */
export function narrative(results: CapacityResults, figures: Record<string, string | number>): Array<{ says: string; holds: boolean }> {
  const n = (path: string) => num(results, path);
  const { dflt, raised } = scenarios(results);
  const caps = results.projection.shared_caps_pages_per_s;
  const sharedOrder = ['store_write_ops', 'redis_commands', 'redis_cpu', 'store_write_bytes'].sort((a, b) => caps[a] - caps[b]);
  const near = (a: number, b: number, share: number) => Math.abs(a - b) <= share * Math.abs(b);
  return [
    {
      says: "the store's write rate is the first shared limit, then Redis (its command rate or its CPU)",
      holds: sharedOrder[0] === 'store_write_ops' && sharedOrder[1].startsWith('redis_'),
    },
    {
      says: 'one replica with the default page workers is bound by them, using a small part of a core',
      holds: dflt[0].saturates_first === 'crawler_replicas' && Number(figures.default_replica_vcpu) < 0.25,
    },
    {
      says: "a replica's CPU bound is its main thread",
      holds: n('projection.per_replica.cpu_cap_main_thread_pages_per_s') <= n('projection.per_replica.cpu_cap_all_threads_pages_per_s'),
    },
    {
      says: "past the replica counts the guide computes, the projection's rows stop at the store's write rate",
      holds: [...dflt, ...raised]
        .filter(
          (s) => s.replicas >= (dflt.includes(s) ? Number(figures.replicas_default_to_store) : Number(figures.replicas_raised_to_store)),
        )
        .every((s) => s.saturates_first === 'store_write_ops'),
    },
    {
      says: "Redis at the store's limit handles under half of the small-VM figure",
      holds: Number(figures.redis_at_store_cap) < 0.5 * n('projection.inputs.published.redis_commands_per_s_vm.value'),
    },
    {
      says: 'per-page documents written, write commands and Redis commands hardly depend on the replica count',
      holds:
        near(n('summary.cluster_2.store.per_page.docs_written'), n('summary.cluster_1.store.per_page.docs_written'), 0.05) &&
        near(n('summary.cluster_2.store.per_page.write_commands'), n('summary.cluster_1.store.per_page.write_commands'), 0.15) &&
        near(n('summary.cluster_2.redis.per_page.commands'), n('summary.cluster_1.redis.per_page.commands'), 0.15),
    },
    {
      says: 'a page handed to another crawler costs more CPU',
      holds: Number(figures.c2_crawler_ms) > n('summary.cluster_1.cpu_per_page.crawler-1.net_ms'),
    },
    {
      says: 'page workers ÷ page wait bounds the measured rate',
      holds: n('summary.latency_8.share_of_bound') <= 1 && n('summary.latency_24.share_of_bound') <= 1,
    },
    {
      says: 'the store and Redis are far from their limits at a million pages a day',
      holds:
        Number(figures.target_store_share) <= 25 &&
        Number(figures.target_redis) <= 0.25 * n('projection.inputs.published.redis_commands_per_s_vm.value'),
    },
  ];
}
