import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { envSchema } from './config.schema';

export type Deployment = 'embedded' | 'cluster';
export type Role = 'all' | 'api' | 'crawler';

/** Typed, validated configuration. The only reader of process.env in Gleaner. */
export interface AppConfig {
  deployment: Deployment;
  role: Role;
  version: string;
  port: number;
  host: string;
  crawlerPort: number;
  dataDir: string;
  /** Embedded store durability: `full` survives power loss, `normal` survives process crashes (kill -9). */
  sqliteSynchronous: 'full' | 'normal';
  mongodbUri?: string;
  redisUrl?: string;
  bootstrapKey?: string;
  secret: string;
  /** Earlier values of GLEANER_SECRET, still accepted for decryption during a rotation. */
  previousSecrets: string[];
  /** JSON file merged over the shipped price table. */
  priceTableFile?: string;
  allowPrivateNetworks: boolean;
  publicUrl?: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  rateLimitPerMinute: number;
  maxRunningJobsPerUser: number;
  /** Crawls have their own per-user cap, so running crawls never keep a user's extractions waiting. */
  maxRunningCrawlsPerUser: number;
  bodyLimitBytes: number;
  /** URLs in one streamed batch list body (text/plain, ndjson), outside the JSON body limit; at most the crawl's max_pages cap. */
  batchMaxUrls: number;
  /** A crawl's `max_pages` ceiling (GLEANER_CRAWL_MAX_PAGES). */
  crawlMaxPages: number;
  /** POST /map answers within this (what it found by then, `complete: false`). */
  mapTimeBudgetMs: number;
  /** Days an archived page is kept (docs/archive.md); 0 turns the archive off. */
  archiveTtlDays: number;
  /** Stored (compressed) archive bytes per tenant past which no new body is kept; 0 = no cap. */
  archiveMaxBytesPerTenant: number;
  /** How often a worker process runs the archive's retention sweep. */
  archiveSweepMs: number;
  /** The largest WARC body POST /warc-extract takes (streamed to storage, outside the JSON body limit). */
  warcMaxBytes: number;
  workerConcurrency: number;
  /** Crawl actors (coordinators) a crawler process runs at once: the crawls queue's own slots. */
  crawlConcurrency: number;
  /** Page tasks (fetch, convert, model call) a crawler process runs at once, for any crawl of any replica. */
  pageWorkers: number;
  /** A crawl's ownership lease: the owner renews it every third of this; a dead owner's crawl is taken over after it. */
  crawlLeaseMs: number;
  /** Politeness, shared by every crawl of every replica (see docs/crawl.md). */
  hostMaxConcurrency: number;
  hostMinIntervalMs: number;
  crawlDelayMaxMs: number;
  rateLimitBackoffBaseMs: number;
  rateLimitBackoffMaxMs: number;
  hostMaxStallMs: number;
  /** A host slot's lease, renewed every third of it while its request runs: a dead worker's slot frees within it. */
  hostSlotLeaseMs: number;
  /** A robots.txt that answered 5xx/429 or was unreachable counts as "disallow all" this long, then is read again (3 times at most). */
  robotsRetryMs: number;
  /** robots.txt product token matched against User-agent groups. */
  robotsUserAgent: string;
  /** Static name → address mappings (GLEANER_RESOLVE), checked by the address guard like DNS answers. */
  resolve: Array<{ host: string; address: string }>;
  /** Private ranges opened on purpose (GLEANER_ALLOW_NETWORKS), e.g. an intranet. */
  allowNetworks: string[];
  /** The operator's proxy pools as given (GLEANER_PROXY_POOLS, JSON with credentials: never logged or shown). */
  proxyPools?: string;
  /**
   * Failover of queue work (jobs, crawl actors, page tasks, webhook deliveries): a worker renews the lock
   * of each message it runs every quarter of this; a message whose lock ran out goes to another worker
   * at the next stalled check. A dead worker's work runs again within queueStalledMs + queueStalledCheckMs.
   */
  queueStalledMs: number;
  /** How often live workers look for messages whose lock ran out (default a fifth of queueStalledMs). */
  queueStalledCheckMs: number;
  shutdownGraceMs: number;
  authCacheMs: number;
  sseHeartbeatMs: number;
  /** Server default chain (GLEANER_DEFAULT_CHAIN), used with server-held keys when a caller has none. */
  defaultChain: Array<{ provider: string; model: string; max_tokens?: number; temperature?: number }>;
  /** Server-held provider keys and endpoints (never returned, never logged). */
  serverProviders: {
    openai: { apiKey?: string; baseUrl?: string };
    anthropic: { apiKey?: string; baseUrl?: string };
    openrouter: { apiKey?: string; baseUrl?: string };
    ollama: { apiKey?: string; baseUrl?: string };
  };
  llmTimeoutMs: number;
  /** Retries of the same chain entry on transient failures before moving on. */
  llmRetries: number;
  /** Operator fee on top of model cost, in percent (cost_usd = llm_cost_usd × (1 + fee/100)). */
  feePercent: number;
  fetchTimeoutMs: number;
  fetchMaxBytes: number;
  browserEnabled: boolean;
  chromiumPath: string;
  browserMaxBrowsers: number;
  /** No new browser page opens while the container's working set is above this percent of its memory limit (100: off). */
  browserMemoryPercent: number;
  /** JavaScript heap cap of each browser tab, in MB. */
  browserPageHeapMb: number;
  contentThreads: number;
  contentTimeoutMs: number;
  /** A PDF with more pages fails with content_too_large (docs/scrape.md "PDFs"). */
  pdfMaxPages: number;
  /** How long POST /extract and /analyze wait for their job before answering 504. */
  extractWaitMs: number;
  /** Items of a long list one model answer is asked for at most (docs/long-lists.md "Chunks"). */
  listItemsPerCall: number;
  webhookTimeoutMs: number;
  webhookMaxAttempts: number;
  webhookRetryBaseMs: number;
  webhookRetryMaxMs: number;
  /** The shortest monitor interval accepted (docs/monitors.md "Schedules"). */
  monitorMinIntervalMs: number;
  /** Monitor changes older than this are deleted. */
  monitorHistoryDays: number;
  /** How often a replica's monitor scheduler looks for due runs and finished ones. */
  monitorTickMs: number;
  /** The largest delay added to a monitor's due time so that monitors due together spread out. */
  monitorJitterMaxMs: number;
  /** Whether this API replica runs the monitor scheduler (every replica may: runs are claimed in the store). */
  monitorScheduler: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

// Read once; the package version is the API version (X-API-Version).
const VERSION: string = (() => {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    try {
      return (JSON.parse(readFileSync(join(__dirname, '..', '..', '..', '..', 'package.json'), 'utf8')) as { version: string }).version;
    } catch {
      return '0.0.0';
    }
  }
})();

/**
 * Validates the environment and returns the configuration, or throws a ConfigError listing every
 * bad variable at once. `role` comes from the entry point, not from the environment.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env, role: Role = 'all'): AppConfig {
  const parsed = envSchema.safeParse(env);
  const problems: string[] = [];
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push(`${issue.path.join('.')}: ${issue.message}`);
    }
  }
  const raw = parsed.success ? parsed.data : undefined;
  const hasMongo = Boolean(env.MONGODB_URI);
  const hasRedis = Boolean(env.REDIS_URL);
  if (hasMongo !== hasRedis) {
    problems.push(
      `${hasMongo ? 'REDIS_URL' : 'MONGODB_URI'}: cluster mode needs both MONGODB_URI and REDIS_URL (set both, or neither for embedded mode)`,
    );
  }
  const deployment: Deployment = hasMongo && hasRedis ? 'cluster' : 'embedded';
  if (role !== 'all' && deployment !== 'cluster') {
    problems.push(
      `MONGODB_URI, REDIS_URL: the ${role} role runs only in cluster mode; set both (or use \`npm start\` for one embedded process)`,
    );
  }
  if (deployment === 'cluster' && !env.GLEANER_SECRET) {
    problems.push('GLEANER_SECRET: required in cluster mode (every replica must share it), at least 32 characters');
  }
  if (problems.length > 0 || !raw) throw new ConfigError(problems);

  const dataDir = resolve(raw.DATA_DIR);
  const secret = raw.GLEANER_SECRET ?? loadOrCreateSecret(dataDir);
  return {
    deployment,
    role,
    version: VERSION,
    port: raw.PORT,
    host: raw.HOST,
    crawlerPort: raw.CRAWLER_PORT,
    dataDir,
    sqliteSynchronous: raw.GLEANER_SQLITE_SYNCHRONOUS,
    mongodbUri: raw.MONGODB_URI,
    redisUrl: raw.REDIS_URL,
    bootstrapKey: raw.GLEANER_BOOTSTRAP_KEY,
    secret,
    previousSecrets: raw.GLEANER_PREVIOUS_SECRETS,
    priceTableFile: raw.GLEANER_PRICE_TABLE_FILE,
    allowPrivateNetworks: raw.GLEANER_ALLOW_PRIVATE_NETWORKS,
    publicUrl: raw.GLEANER_PUBLIC_URL?.replace(/\/+$/, ''),
    logLevel: raw.LOG_LEVEL,
    rateLimitPerMinute: raw.GLEANER_RATE_LIMIT_PER_MINUTE,
    maxRunningJobsPerUser: raw.GLEANER_MAX_RUNNING_JOBS_PER_USER,
    maxRunningCrawlsPerUser: raw.GLEANER_MAX_RUNNING_CRAWLS_PER_USER,
    bodyLimitBytes: raw.GLEANER_BODY_LIMIT_BYTES,
    batchMaxUrls: raw.GLEANER_BATCH_MAX_URLS,
    crawlMaxPages: raw.GLEANER_CRAWL_MAX_PAGES,
    mapTimeBudgetMs: raw.GLEANER_MAP_TIME_BUDGET_MS,
    archiveTtlDays: raw.GLEANER_ARCHIVE_TTL_DAYS,
    archiveMaxBytesPerTenant: raw.GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT,
    archiveSweepMs: raw.GLEANER_ARCHIVE_SWEEP_MS,
    warcMaxBytes: raw.GLEANER_WARC_MAX_BYTES,
    workerConcurrency: raw.GLEANER_WORKER_CONCURRENCY,
    crawlConcurrency: raw.GLEANER_CRAWL_CONCURRENCY,
    pageWorkers: raw.GLEANER_PAGE_WORKERS,
    crawlLeaseMs: raw.GLEANER_CRAWL_LEASE_MS,
    hostMaxConcurrency: raw.GLEANER_HOST_MAX_CONCURRENCY,
    hostMinIntervalMs: raw.GLEANER_HOST_MIN_INTERVAL_MS,
    crawlDelayMaxMs: raw.GLEANER_CRAWL_DELAY_MAX_MS,
    rateLimitBackoffBaseMs: raw.GLEANER_RATE_LIMIT_BACKOFF_BASE_MS,
    rateLimitBackoffMaxMs: raw.GLEANER_RATE_LIMIT_BACKOFF_MAX_MS,
    hostMaxStallMs: raw.GLEANER_HOST_MAX_STALL_MS,
    hostSlotLeaseMs: raw.GLEANER_HOST_SLOT_LEASE_MS,
    robotsRetryMs: raw.GLEANER_ROBOTS_RETRY_MS,
    robotsUserAgent: raw.GLEANER_ROBOTS_USER_AGENT,
    resolve: raw.GLEANER_RESOLVE,
    allowNetworks: raw.GLEANER_ALLOW_NETWORKS,
    proxyPools: raw.GLEANER_PROXY_POOLS,
    queueStalledMs: raw.GLEANER_QUEUE_STALLED_MS,
    queueStalledCheckMs:
      raw.GLEANER_QUEUE_STALLED_CHECK_MS === -1
        ? Math.max(100, Math.floor(raw.GLEANER_QUEUE_STALLED_MS / 5))
        : raw.GLEANER_QUEUE_STALLED_CHECK_MS,
    shutdownGraceMs: raw.GLEANER_SHUTDOWN_GRACE_MS,
    authCacheMs: raw.GLEANER_AUTH_CACHE_MS,
    sseHeartbeatMs: raw.GLEANER_SSE_HEARTBEAT_MS,
    defaultChain: raw.GLEANER_DEFAULT_CHAIN,
    serverProviders: {
      openai: { apiKey: raw.GLEANER_OPENAI_API_KEY, baseUrl: raw.GLEANER_OPENAI_BASE_URL },
      anthropic: { apiKey: raw.GLEANER_ANTHROPIC_API_KEY, baseUrl: raw.GLEANER_ANTHROPIC_BASE_URL },
      openrouter: { apiKey: raw.GLEANER_OPENROUTER_API_KEY, baseUrl: raw.GLEANER_OPENROUTER_BASE_URL },
      ollama: { baseUrl: raw.GLEANER_OLLAMA_BASE_URL },
    },
    llmTimeoutMs: raw.GLEANER_LLM_TIMEOUT_MS,
    llmRetries: raw.GLEANER_LLM_RETRIES,
    feePercent: raw.GLEANER_FEE_PERCENT,
    extractWaitMs: raw.GLEANER_EXTRACT_WAIT_MS,
    listItemsPerCall: raw.GLEANER_LIST_ITEMS_PER_CALL,
    fetchTimeoutMs: raw.GLEANER_FETCH_TIMEOUT_MS,
    fetchMaxBytes: raw.GLEANER_FETCH_MAX_BYTES,
    browserEnabled: raw.GLEANER_BROWSER_ENABLED,
    chromiumPath: raw.GLEANER_CHROMIUM_PATH,
    browserMaxBrowsers: raw.GLEANER_BROWSER_MAX_BROWSERS,
    browserMemoryPercent: raw.GLEANER_BROWSER_MEMORY_PERCENT,
    browserPageHeapMb: raw.GLEANER_BROWSER_PAGE_HEAP_MB,
    contentThreads: raw.GLEANER_CONTENT_THREADS,
    contentTimeoutMs: raw.GLEANER_CONTENT_TIMEOUT_MS,
    pdfMaxPages: raw.GLEANER_PDF_MAX_PAGES,
    webhookTimeoutMs: raw.GLEANER_WEBHOOK_TIMEOUT_MS,
    webhookMaxAttempts: raw.GLEANER_WEBHOOK_MAX_ATTEMPTS,
    webhookRetryBaseMs: raw.GLEANER_WEBHOOK_RETRY_BASE_MS,
    webhookRetryMaxMs: raw.GLEANER_WEBHOOK_RETRY_MAX_MS,
    monitorMinIntervalMs: raw.GLEANER_MONITOR_MIN_INTERVAL_S * 1000,
    monitorHistoryDays: raw.GLEANER_MONITOR_HISTORY_DAYS,
    monitorTickMs: raw.GLEANER_MONITOR_TICK_MS,
    monitorJitterMaxMs: raw.GLEANER_MONITOR_JITTER_S * 1000,
    monitorScheduler: raw.GLEANER_MONITOR_SCHEDULER,
  };
}

/** Embedded mode keeps a generated secret in DATA_DIR (mode 0600) so restarts can decrypt what was stored. */
function loadOrCreateSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return secret;
}

export const APP_CONFIG = Symbol('APP_CONFIG');

/** How a server process exits on a bad configuration (sysexits EX_CONFIG). */
export const EXIT_CONFIG = 78;

/**
 * loadConfig for an entry point: a bad configuration is written to `stderr` (every problem at once)
 * and answers undefined, so the caller only decides how to stop; any other error propagates.
 */
export function loadConfigOrReport(
  env: Record<string, string | undefined>,
  role: Role,
  stderr: { write(text: string): unknown },
): AppConfig | undefined {
  try {
    return loadConfig(env, role);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    stderr.write(`${error.message}\n`);
    return undefined;
  }
}
