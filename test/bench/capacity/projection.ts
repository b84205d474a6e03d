/**
 * The sizing projection of docs/capacity.md, computed from the measured per-page costs (summary.ts) and
 * a few published capacity figures and stated assumptions, so every number of the guide can be traced:
 * each input names where it comes from (a path in capacity.json, a URL, or "assumption").
 *
 * Model: a crawler replica completes min(CPU cap, page workers / page wait) pages per second; the
 * cluster completes min(replicas × that, what the store allows, what Redis allows). The model provider's
 * rate limits and per-host politeness bound it from outside and are reported as demands, not caps.
 */

const r = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Published capacity figures (each with its source). */
export const PUBLISHED = {
  mongo_single_doc_writes_per_s: {
    value: 3947,
    unit: 'inserts/s',
    what: 'inserts/s of 4 KB documents, one per request, 48 client threads, write concern majority, on a 3-node Atlas M30 replica set (2 vCPU, 8 GB) with 3,000 IOPS gp3 storage',
    source:
      'https://github.com/johnlpage/UniBench/blob/main/reporting/report.md ("Impact of client write batch size", batch size 1; a MongoDB engineer\'s draft performance tables)',
  },
  mongo_batched_writes_per_s: {
    value: 17759,
    unit: 'inserts/s',
    what: 'the same with 1,000 documents per request: the volume’s 125 MB/s write limit is reached',
    source: 'https://github.com/johnlpage/UniBench/blob/main/reporting/report.md (batch size 1,000)',
  },
  mongo_volume_write_mb_per_s: {
    value: 125,
    unit: 'MB/s',
    what: 'baseline write throughput of an AWS gp3 volume (3,000 IOPS), the default storage of Atlas M30+ on AWS',
    source:
      'https://docs.aws.amazon.com/AWSEC2/latest/WindowsGuide/general-purpose.html (gp3: 3,000 IOPS and 125 MiB/s baseline); https://www.mongodb.com/docs/atlas/sizing-tier-selection/ (M30 and larger for production)',
  },
  mongo_write_amplification: {
    value: 3,
    unit: '×',
    what: 'each write is written to the collection, the journal (WAL) and the oplog; the benchmark above writes ~2.1 MB to disk per MB inserted before replication (O/S write 126 MB/s for 61.8 MB/s of documents)',
    source:
      'https://github.com/johnlpage/UniBench/blob/main/reporting/report.md ("Impact of document size", resource usage); rounded up to 3',
  },
  redis_commands_per_s_vm: {
    value: 35000,
    unit: 'commands/s',
    what: 'redis-benchmark SET/GET without pipelining, 50 clients, on a small VM (Linode 2048); 122,556 SET/s on a bare-metal Xeon E5520',
    source:
      'https://redis.io/docs/latest/operate/oss_and_stack/management/optimization/benchmarks/ ("Benchmark results on different virtualized and bare-metal servers")',
  },
} as const;

/** Assumptions of the projection (not measured here; change them and the formulas still hold). */
export const ASSUMED = {
  page_wait_s: {
    value: 2,
    unit: 's',
    what: 'time a page task waits on the outside per page: ~1 s to fetch a real page statically, ~1 s for a small model’s structured answer',
  },
  page_workers_default: { value: 8, unit: 'page workers', what: 'GLEANER_PAGE_WORKERS default (README)' },
  replica_vcpus: {
    value: 2,
    unit: 'vCPUs',
    what: 'vCPUs given to each crawler replica (its main thread uses one; HTML conversion threads and GC the other)',
  },
  cpu_target: { value: 0.7, unit: 'of a core', what: 'CPU utilisation to plan for (headroom for bursts, GC, larger pages)' },
  crawl_concurrency_default: {
    value: 4,
    unit: 'pages in flight',
    what: 'a crawl’s `concurrency` when the request names none (CRAWL_OPTION_DEFAULTS)',
  },
  crawl_concurrency_max: {
    value: 32,
    unit: 'pages in flight',
    what: 'the largest `concurrency` a crawl accepts (OpenAPI): pages of one crawl in flight at once',
  },
  host_max_concurrency: {
    value: 4,
    unit: 'requests in flight',
    what: 'GLEANER_HOST_MAX_CONCURRENCY default: requests in flight to one host, cluster-wide',
  },
  fetch_s: { value: 1, unit: 's', what: 'fetch time of one page (politeness bound per host = concurrency / fetch time)' },
  store_target: { value: 0.7, unit: 'of the figure', what: 'share of the published store capacity to plan for' },
  redis_target: { value: 0.7, unit: 'of the figure', what: 'share of the published Redis capacity to plan for' },
} as const;

const TARGET_PAGES_PER_DAY = 1_000_000;
const REPLICAS = [1, 4, 16, 64];

type Json = Record<string, any>;

function get(obj: Json, path: string): number {
  const value = path.split('.').reduce<any>((o, k) => (o === undefined || o === null ? undefined : o[k]), obj);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`projection input ${path} is missing`);
  return value;
}

export function project(summary: Json): Json {
  if (!summary.cluster_1) return { note: 'run cluster_1 (and cluster_2) first' };
  const base = 'cluster_1';
  const input = (path: string) => ({ value: get(summary, `${base}.${path}`), from: `summary.${base}.${path}` });
  // A page's crawler CPU in a cluster of several crawlers (the owner's share and the page worker's, each on
  // its process, plus the hand-over between them): the sum over the crawlers of the 2-crawler run, which is
  // more than the 1-crawler run's (no hand-over between processes there).
  const crawlerSum = (field: 'net_ms' | 'main_thread_net_ms') => {
    const run = summary.cluster_2 ? 'cluster_2' : base;
    const names = Object.keys(summary[run].cpu_per_page).filter((k) => k.startsWith('crawler-'));
    return {
      value: r(
        names.reduce((a, k) => a + get(summary, `${run}.cpu_per_page.${k}.${field}`), 0),
        2,
      ),
      from: names.map((k) => `summary.${run}.cpu_per_page.${k}.${field}`).join(' + '),
    };
  };
  const crawlerMs = crawlerSum('net_ms');
  const crawlerMainMs = crawlerSum('main_thread_net_ms');
  const apiMs = input('cpu_per_page.api.net_ms');
  const redisCpuMs = input('cpu_per_page.redis.net_ms');
  // A page's store and Redis commands in a cluster of several crawlers, where pages run on a crawler that does not
  // own their crawl (their outcomes are written by the page worker and read by the owner): the 2-crawler run.
  const several = summary.cluster_2 ? 'cluster_2' : base;
  const inputOfSeveral = (path: string) => ({ value: get(summary, `${several}.${path}`), from: `summary.${several}.${path}` });
  const storeCommands = inputOfSeveral('store.per_page.commands');
  const storeWrites = inputOfSeveral('store.per_page.write_commands');
  const storeWriteBytes = inputOfSeveral('store.per_page.write_request_bytes');
  const redisCommands = inputOfSeveral('redis.per_page.commands');
  const modelCalls = input('model.calls');
  const inputTokens = input('model.prompt_tokens_o200k');
  const outputTokens = input('model.reported_output_tokens');
  // Background per crawler replica: the difference between the 2- and the 1-crawler cluster when both ran.
  const bg = (path: string) => {
    const one = get(summary, `cluster_1.${path}`);
    const two = summary.cluster_2 ? get(summary, `cluster_2.${path}`) : NaN;
    const perCrawler = Number.isFinite(two) ? Math.max(0, two - one) : one / 2;
    return {
      value: r(perCrawler, 2),
      from: Number.isFinite(two) ? `summary.cluster_2.${path} − summary.cluster_1.${path}` : `summary.cluster_1.${path} / 2`,
    };
  };
  const storeBgPerReplica = bg('store.idle_per_s.driver_housekeeping_commands');
  const redisBgPerReplica = bg('redis.idle_per_s.commands');

  const wait = ASSUMED.page_wait_s.value;
  const cpuCapMain = (ASSUMED.cpu_target.value * 1000) / crawlerMainMs.value;
  const cpuCapAll = (ASSUMED.cpu_target.value * ASSUMED.replica_vcpus.value * 1000) / crawlerMs.value;
  const replicaCpuCap = Math.min(cpuCapMain, cpuCapAll);
  const latencyCapDefault = ASSUMED.page_workers_default.value / wait;
  const perReplicaDefault = Math.min(replicaCpuCap, latencyCapDefault);
  const workersForCpuCap = Math.ceil(replicaCpuCap * wait);

  // A write command costs its round trip and its documents. The two published figures (1 document per
  // command; 1,000 per command, where the volume's bandwidth is the limit) fit seconds = commands ×
  // per_command + documents × per_document; a page's writes are priced by that (documents written, not
  // only commands), so batched writes count as what they are.
  const perDocS = 1 / PUBLISHED.mongo_batched_writes_per_s.value;
  const perCommandS = 1 / PUBLISHED.mongo_single_doc_writes_per_s.value - perDocS;
  const storeDocs = inputOfSeveral('store.per_page.docs_written');
  const writeSeconds = (commands: number, docs: number) => commands * perCommandS + docs * perDocS;
  const storeWriteCap = ASSUMED.store_target.value / writeSeconds(storeWrites.value, storeDocs.value); // pages/s
  const storeWriteCapSingleDoc = (PUBLISHED.mongo_single_doc_writes_per_s.value * ASSUMED.store_target.value) / storeWrites.value;
  const storeBytesCap =
    (PUBLISHED.mongo_volume_write_mb_per_s.value * 1e6 * ASSUMED.store_target.value) / PUBLISHED.mongo_write_amplification.value;
  const redisCap = PUBLISHED.redis_commands_per_s_vm.value * ASSUMED.redis_target.value;
  const redisCpuCap = (ASSUMED.redis_target.value * 1000) / Math.max(redisCpuMs.value, 1e-6);

  const scenario = (replicas: number, perReplica: number) => {
    const crawlers = replicas * perReplica;
    // pages/s the shared services allow (Redis: once the replicas' own background commands are taken off;
    // the store's background is the driver's heartbeats, which write nothing)
    const storeByWrites = storeWriteCap;
    const storeByBytes = storeBytesCap / Math.max(1, storeWriteBytes.value);
    const redisByCommands = Math.max(0, redisCap - replicas * redisBgPerReplica.value) / redisCommands.value;
    const caps: Record<string, number> = {
      crawler_replicas: crawlers,
      store_write_ops: storeByWrites,
      store_write_bytes: storeByBytes,
      redis_commands: redisByCommands,
      redis_cpu: redisCpuCap,
    };
    const sorted = Object.entries(caps).sort((a, b) => a[1] - b[1]);
    const [first, pagesPerS] = sorted[0];
    return {
      replicas,
      projected_pages_per_s: r(pagesPerS),
      pages_per_day: Math.round(pagesPerS * 86_400),
      saturates_first: first,
      // What limits next once the first limit is lifted (more replicas, a larger store…), and where.
      saturates_next: sorted[1][0],
      saturates_next_at_pages_per_s: r(sorted[1][1]),
      caps_pages_per_s: Object.fromEntries(Object.entries(caps).map(([k, v]) => [k, r(v)])),
      at_that_rate: {
        crawler_vcpus: r((pagesPerS * crawlerMs.value) / 1000 / ASSUMED.cpu_target.value, 1),
        api_cpu_ms_per_s: r(pagesPerS * apiMs.value),
        store_commands_per_s: Math.round(pagesPerS * storeCommands.value + replicas * storeBgPerReplica.value),
        store_write_commands_per_s: Math.round(pagesPerS * storeWrites.value),
        store_write_mb_per_s: r((pagesPerS * storeWriteBytes.value) / 1e6, 2),
        redis_commands_per_s: Math.round(pagesPerS * redisCommands.value + replicas * redisBgPerReplica.value),
        model_requests_per_min: Math.round(pagesPerS * 60 * modelCalls.value),
        model_tokens_per_min: Math.round(pagesPerS * 60 * (inputTokens.value + outputTokens.value)),
      },
    };
  };

  // Levers on the first shared limit: the archive's writes (archive: false) are measured apart (by_area).
  const archiveWrites = {
    value: get(summary, `${several}.store.by_area.archive.write_commands`),
    from: `summary.${several}.store.by_area.archive.write_commands`,
  };
  const archiveDocsPath = `${several}.store.by_area.archive.docs_written`;
  const archiveDocs = { value: get(summary, archiveDocsPath), from: `summary.${archiveDocsPath}` };
  const target = TARGET_PAGES_PER_DAY / 86_400;
  const needed = (perReplica: number) => Math.ceil(target / perReplica);
  return {
    inputs: {
      measured: {
        crawler_cpu_ms_per_page: crawlerMs,
        crawler_main_thread_ms_per_page: crawlerMainMs,
        api_cpu_ms_per_page: apiMs,
        redis_cpu_ms_per_page: redisCpuMs,
        store_commands_per_page: storeCommands,
        store_write_commands_per_page: storeWrites,
        store_docs_written_per_page: storeDocs,
        store_archive_docs_written_per_page: archiveDocs,
        store_write_request_bytes_per_page: storeWriteBytes,
        store_archive_write_commands_per_page: archiveWrites,
        redis_commands_per_page: redisCommands,
        model_calls_per_page: modelCalls,
        model_input_tokens_per_page: inputTokens,
        model_output_tokens_per_page: outputTokens,
        store_background_commands_per_s_per_replica: storeBgPerReplica,
        redis_background_commands_per_s_per_replica: redisBgPerReplica,
      },
      published: PUBLISHED,
      assumed: ASSUMED,
    },
    per_replica: {
      cpu_cap_pages_per_s: r(replicaCpuCap),
      cpu_cap_main_thread_pages_per_s: r(cpuCapMain),
      cpu_cap_all_threads_pages_per_s: r(cpuCapAll),
      latency_cap_default_workers_pages_per_s: r(latencyCapDefault),
      pages_per_s_default_workers: r(perReplicaDefault),
      page_workers_to_reach_cpu_cap: workersForCpuCap,
    },
    store_write_model: {
      per_command_ms: r(perCommandS * 1000, 4),
      per_document_ms: r(perDocS * 1000, 4),
      what: 'seconds of the published replica set per write command and per document written, fitted to its 1-document and 1,000-document figures',
      ms_per_page: r(writeSeconds(storeWrites.value, storeDocs.value) * 1000, 3),
    },
    shared_caps_pages_per_s: {
      store_write_ops: r(storeWriteCap),
      store_write_ops_archive_off: r(
        ASSUMED.store_target.value /
          writeSeconds(Math.max(0.1, storeWrites.value - archiveWrites.value), Math.max(0.1, storeDocs.value - archiveDocs.value)),
      ),
      store_write_ops_if_every_command_single_doc: r(storeWriteCapSingleDoc),
      store_write_bytes: r(storeBytesCap / Math.max(1, storeWriteBytes.value)),
      redis_commands: r(redisCap / redisCommands.value),
      redis_cpu: r(redisCpuCap),
    },
    per_crawl: {
      pages_per_s_default_concurrency: r(ASSUMED.crawl_concurrency_default.value / wait),
      pages_per_s_max: r(ASSUMED.crawl_concurrency_max.value / wait),
      crawls_needed_for_target: Math.ceil(target / (ASSUMED.crawl_concurrency_max.value / wait)),
    },
    politeness: {
      pages_per_s_per_host: r(ASSUMED.host_max_concurrency.value / ASSUMED.fetch_s.value),
      hosts_needed_for_target: Math.ceil(target / (ASSUMED.host_max_concurrency.value / ASSUMED.fetch_s.value)),
    },
    scenarios: {
      default_page_workers: REPLICAS.map((n) => scenario(n, perReplicaDefault)),
      page_workers_raised: REPLICAS.map((n) => scenario(n, replicaCpuCap)),
    },
    target: {
      pages_per_day: TARGET_PAGES_PER_DAY,
      pages_per_s: r(target, 2),
      replicas_default_page_workers: needed(perReplicaDefault),
      replicas_page_workers_raised: needed(replicaCpuCap),
      model_requests_per_min: Math.round(target * 60 * modelCalls.value),
      model_tokens_per_min: Math.round(target * 60 * (inputTokens.value + outputTokens.value)),
      model_tokens_per_day: Math.round(TARGET_PAGES_PER_DAY * (inputTokens.value + outputTokens.value)),
      store_write_gb_per_day: r((TARGET_PAGES_PER_DAY * storeWriteBytes.value) / 1e9, 2),
    },
  };
}
