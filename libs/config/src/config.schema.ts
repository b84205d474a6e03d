import { z } from 'zod';
import { BOOLEAN_WORDS_HINT, parseBooleanSetting } from './boolean-setting';

/** The non-empty items of a comma-separated setting, trimmed (an unset one has none). */
const commaList = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

const bool = (fallback: boolean) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined) return fallback;
      const value = parseBooleanSetting(v);
      if (value === undefined) {
        ctx.addIssue({ code: 'custom', message: `must be ${BOOLEAN_WORDS_HINT}` });
        return z.NEVER;
      }
      return value;
    });

const int = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return fallback;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min || n > max) {
        ctx.addIssue({ code: 'custom', message: `must be an integer from ${min} to ${max}` });
        return z.NEVER;
      }
      return n;
    });

const url = (protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return undefined;
      try {
        const parsed = new URL(v);
        if (!protocols.includes(parsed.protocol)) throw new Error('protocol');
        return v;
      } catch {
        ctx.addIssue({ code: 'custom', message: `must be a ${protocols.join(' or ')} URL` });
        return z.NEVER;
      }
    });

/** Every environment variable Gleaner reads, with its default. docs/operations.md lists them. */
export const envSchema = z.object({
  PORT: int(8080, 1, 65535),
  HOST: z.string().min(1).optional().default('0.0.0.0'),
  CRAWLER_PORT: int(8081, 1, 65535),
  DATA_DIR: z.string().min(1).optional().default('./data'),
  GLEANER_SQLITE_SYNCHRONOUS: z.enum(['full', 'normal']).optional().default('normal'),
  MONGODB_URI: url(['mongodb:', 'mongodb+srv:']),
  REDIS_URL: url(['redis:', 'rediss:']),
  GLEANER_BOOTSTRAP_KEY: z
    .string()
    .regex(/^glk_[0-9A-Za-z]{40}$/, 'must look like glk_ followed by 40 letters or digits')
    .optional(),
  GLEANER_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  GLEANER_PREVIOUS_SECRETS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const list = commaList(v);
      if (list.some((s) => s.length < 32)) {
        ctx.addIssue({ code: 'custom', message: 'each comma-separated secret must be at least 32 characters' });
        return z.NEVER;
      }
      return list;
    }),
  GLEANER_PRICE_TABLE_FILE: z.string().min(1).optional(),
  GLEANER_ALLOW_PRIVATE_NETWORKS: bool(false),
  GLEANER_PUBLIC_URL: url(['http:', 'https:']),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional().default('info'),
  GLEANER_RATE_LIMIT_PER_MINUTE: int(600, 1, 1_000_000),
  GLEANER_MAX_RUNNING_JOBS_PER_USER: int(20, 1, 10_000),
  GLEANER_MAX_RUNNING_CRAWLS_PER_USER: int(5, 1, 10_000),
  GLEANER_BODY_LIMIT_BYTES: int(1_048_576, 1024, 100 * 1_048_576),
  GLEANER_BATCH_MAX_URLS: int(100_000, 1, 100_000),
  /** A crawl's `max_pages` ceiling (docs/crawl.md "Crawls past 100,000 pages"). */
  GLEANER_CRAWL_MAX_PAGES: int(100_000, 1, 10_000_000),
  GLEANER_MAP_TIME_BUDGET_MS: int(20_000, 1000, 120_000),
  GLEANER_ARCHIVE_TTL_DAYS: int(30, 0, 3650),
  GLEANER_ARCHIVE_MAX_BYTES_PER_TENANT: int(10 * 1024 ** 3, 0, 2 ** 50),
  GLEANER_ARCHIVE_SWEEP_MS: int(600_000, 1000, 86_400_000),
  GLEANER_WARC_MAX_BYTES: int(1024 ** 3, 1024, 2 ** 40),
  GLEANER_WORKER_CONCURRENCY: int(8, 1, 256),
  GLEANER_CRAWL_CONCURRENCY: int(4, 1, 256),
  GLEANER_PAGE_WORKERS: int(8, 1, 512),
  GLEANER_CRAWL_LEASE_MS: int(10_000, 1_000, 600_000),
  GLEANER_HOST_MAX_CONCURRENCY: int(4, 1, 256),
  GLEANER_HOST_MIN_INTERVAL_MS: int(0, 0, 600_000),
  GLEANER_CRAWL_DELAY_MAX_MS: int(30_000, 0, 600_000),
  GLEANER_RATE_LIMIT_BACKOFF_BASE_MS: int(2_000, 10, 600_000),
  GLEANER_RATE_LIMIT_BACKOFF_MAX_MS: int(300_000, 100, 3_600_000),
  GLEANER_HOST_MAX_STALL_MS: int(900_000, 1_000, 86_400_000),
  GLEANER_HOST_SLOT_LEASE_MS: int(10_000, 1_000, 600_000),
  GLEANER_ROBOTS_RETRY_MS: int(60_000, 100, 3_600_000),
  GLEANER_ROBOTS_USER_AGENT: z
    .string()
    .regex(/^[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'must be a robots.txt product token (letters, digits, - and _)')
    .optional()
    .default('GleanerBot'),
  GLEANER_RESOLVE: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const entries: Array<{ host: string; address: string }> = [];
      for (const part of commaList(v)) {
        const m = /^(\*\.)?([a-z0-9]([a-z0-9-]*[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*=([0-9a-f.:]+)$/i.exec(part);
        if (!m) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not name=address (e.g. intranet.example=10.20.0.5 or *.test=127.0.0.1)` });
          return z.NEVER;
        }
        const eq = part.lastIndexOf('=');
        entries.push({ host: part.slice(0, eq).toLowerCase(), address: part.slice(eq + 1) });
      }
      return entries;
    }),
  /** Named proxy pools (JSON; docs/proxies.md): parsed and checked by the fetch lib when the app starts. */
  GLEANER_PROXY_POOLS: z.string().optional(),
  GLEANER_ALLOW_NETWORKS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const list = commaList(v);
      for (const cidr of list) {
        if (!/^[0-9a-f.:]+\/\d{1,3}$/i.test(cidr)) {
          ctx.addIssue({ code: 'custom', message: `"${cidr}" is not a CIDR range (e.g. 10.20.0.0/16)` });
          return z.NEVER;
        }
      }
      return list;
    }),
  GLEANER_QUEUE_STALLED_MS: int(10_000, 500, 600_000),
  /** Unset: a fifth of GLEANER_QUEUE_STALLED_MS. */
  GLEANER_QUEUE_STALLED_CHECK_MS: int(-1, 100, 600_000),
  GLEANER_SHUTDOWN_GRACE_MS: int(20_000, 0, 600_000),
  GLEANER_AUTH_CACHE_MS: int(1_000, 0, 60_000),
  GLEANER_SSE_HEARTBEAT_MS: int(15_000, 100, 120_000),
  GLEANER_DEFAULT_CHAIN: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (!v) return [] as Array<{ provider: string; model: string; max_tokens?: number; temperature?: number }>;
      try {
        const parsed: unknown = JSON.parse(v);
        if (
          !Array.isArray(parsed) ||
          parsed.some(
            (e) =>
              typeof e !== 'object' ||
              e === null ||
              typeof (e as { provider?: unknown }).provider !== 'string' ||
              typeof (e as { model?: unknown }).model !== 'string',
          )
        ) {
          throw new Error('shape');
        }
        return parsed as Array<{ provider: string; model: string; max_tokens?: number; temperature?: number }>;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be a JSON array of {"provider","model"[,"max_tokens","temperature"]}' });
        return z.NEVER;
      }
    }),
  GLEANER_OPENAI_API_KEY: z.string().min(1).optional(),
  GLEANER_OPENAI_BASE_URL: url(['http:', 'https:']),
  GLEANER_ANTHROPIC_API_KEY: z.string().min(1).optional(),
  GLEANER_ANTHROPIC_BASE_URL: url(['http:', 'https:']),
  GLEANER_OPENROUTER_API_KEY: z.string().min(1).optional(),
  GLEANER_OPENROUTER_BASE_URL: url(['http:', 'https:']),
  GLEANER_OLLAMA_BASE_URL: url(['http:', 'https:']),
  GLEANER_LLM_TIMEOUT_MS: int(120_000, 100, 600_000),
  GLEANER_LLM_RETRIES: int(2, 0, 10),
  GLEANER_FEE_PERCENT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === '') return 0;
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0 || n > 1000) {
        ctx.addIssue({ code: 'custom', message: 'must be a number from 0 to 1000' });
        return z.NEVER;
      }
      return n;
    }),
  GLEANER_FETCH_TIMEOUT_MS: int(30_000, 100, 300_000),
  GLEANER_FETCH_MAX_BYTES: int(10 * 1_048_576, 1024, 100 * 1_048_576),
  GLEANER_BROWSER_ENABLED: bool(true),
  GLEANER_CHROMIUM_PATH: z.string().min(1).optional().default('/usr/bin/chromium'),
  GLEANER_BROWSER_MAX_BROWSERS: int(2, 1, 32),
  GLEANER_BROWSER_MEMORY_PERCENT: int(85, 10, 100),
  GLEANER_BROWSER_PAGE_HEAP_MB: int(512, 16, 16_384),
  GLEANER_CONTENT_THREADS: int(2, 1, 64),
  GLEANER_CONTENT_TIMEOUT_MS: int(10_000, 100, 120_000),
  GLEANER_PDF_MAX_PAGES: int(500, 1, 10_000),
  GLEANER_EXTRACT_WAIT_MS: int(120_000, 1_000, 600_000),
  GLEANER_LIST_ITEMS_PER_CALL: int(50, 1, 10_000),
  GLEANER_WEBHOOK_TIMEOUT_MS: int(10_000, 100, 120_000),
  GLEANER_WEBHOOK_MAX_ATTEMPTS: int(5, 1, 50),
  GLEANER_WEBHOOK_RETRY_BASE_MS: int(5_000, 10, 3_600_000),
  GLEANER_WEBHOOK_RETRY_MAX_MS: int(3_600_000, 10, 86_400_000),
  GLEANER_MONITOR_MIN_INTERVAL_S: int(300, 1, 86_400),
  GLEANER_MONITOR_HISTORY_DAYS: int(90, 1, 3650),
  GLEANER_MONITOR_TICK_MS: int(1000, 10, 60_000),
  GLEANER_MONITOR_JITTER_S: int(30, 0, 3600),
  GLEANER_MONITOR_SCHEDULER: bool(true),
});

export type RawEnv = z.infer<typeof envSchema>;

/**
 * GLEANER_CRAWL_MAX_PAGES as the request DTOs read it when they are defined (their `@Max` and the OpenAPI
 * document's `maximum`), before any configuration is loaded: the default when unset or invalid. An invalid
 * value never gets that far: loadConfig refuses it at startup with the variable's name.
 */
export function crawlMaxPagesSetting(env: Record<string, string | undefined> = process.env): number {
  const parsed = envSchema.shape.GLEANER_CRAWL_MAX_PAGES.safeParse(env.GLEANER_CRAWL_MAX_PAGES);
  return parsed.success ? parsed.data : 100_000;
}
