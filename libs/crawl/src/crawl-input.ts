import { z } from 'zod';
import { extractionModeSchema, type ExtractionMode } from '@app/extraction';
import { storedLlmConfigSchema, type StoredLlmConfig } from '@app/intake';
import type { JsonSchemaObject } from '@app/schema';
import { CRAWL_DEFAULTS, type CrawlOptions } from '@app/sites';

/** A crawl's options with every default applied (docs/api.md "Crawl options"), as stored on the job. */
export interface ResolvedCrawlOptions {
  follow_pattern: string | null;
  follow_selector: string | null;
  max_depth: number;
  max_pages: number;
  same_domain_only: boolean;
  use_sitemap: boolean;
  respect_robots: boolean;
  extract_from_seed: boolean;
  concurrency: number;
  delay_ms: number;
  fetch_mode: 'auto' | 'static' | 'dynamic';
  include_patterns: string[];
  exclude_patterns: string[];
  max_cost_usd: number | null;
}

export interface CrawlJobInput {
  /** The seed, canonical. */
  url: string;
  schema: JsonSchemaObject;
  schema_id: string | null;
  site_id: string | null;
  llm_config: StoredLlmConfig | null;
  options: ResolvedCrawlOptions;
  /** `model`: a model call per page; `auto`: learned selector programs per template (docs/learned-extraction.md). */
  extraction_mode: ExtractionMode;
}

const optionsSchema = z.object({
  follow_pattern: z.string().nullable(),
  follow_selector: z.string().nullable(),
  max_depth: z.number().int().min(0),
  max_pages: z.number().int().min(1),
  same_domain_only: z.boolean(),
  use_sitemap: z.boolean(),
  respect_robots: z.boolean(),
  extract_from_seed: z.boolean(),
  concurrency: z.number().int().min(1),
  delay_ms: z.number().int().min(0),
  fetch_mode: z.enum(['auto', 'static', 'dynamic']),
  include_patterns: z.array(z.string()),
  exclude_patterns: z.array(z.string()),
  max_cost_usd: z.number().nullable(),
});

const crawlInputSchema = z.object({
  url: z.string(),
  schema: z.custom<JsonSchemaObject>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'must be a JSON Schema object'),
  schema_id: z.string().nullable(),
  site_id: z.string().nullable(),
  llm_config: storedLlmConfigSchema,
  options: optionsSchema,
  extraction_mode: extractionModeSchema,
});

export function parseCrawlInput(raw: unknown): CrawlJobInput {
  return crawlInputSchema.parse(raw);
}

/** Request options over the site's saved options over the defaults; absent fields fall through. */
export function resolveOptions(request: Partial<CrawlOptions> | undefined, site: Partial<CrawlOptions> | undefined): ResolvedCrawlOptions {
  const pick = <K extends keyof CrawlOptions>(key: K): CrawlOptions[K] | undefined => request?.[key] ?? site?.[key];
  return {
    follow_pattern: pick('follow_pattern') ?? null,
    follow_selector: pick('follow_selector') ?? null,
    max_depth: pick('max_depth') ?? CRAWL_DEFAULTS.max_depth,
    max_pages: pick('max_pages') ?? CRAWL_DEFAULTS.max_pages,
    same_domain_only: pick('same_domain_only') ?? CRAWL_DEFAULTS.same_domain_only,
    use_sitemap: pick('use_sitemap') ?? CRAWL_DEFAULTS.use_sitemap,
    respect_robots: pick('respect_robots') ?? CRAWL_DEFAULTS.respect_robots,
    extract_from_seed: pick('extract_from_seed') ?? CRAWL_DEFAULTS.extract_from_seed,
    concurrency: pick('concurrency') ?? CRAWL_DEFAULTS.concurrency,
    delay_ms: pick('delay_ms') ?? CRAWL_DEFAULTS.delay_ms,
    fetch_mode: pick('fetch_mode') ?? CRAWL_DEFAULTS.fetch_mode,
    include_patterns: pick('include_patterns') ?? CRAWL_DEFAULTS.include_patterns,
    exclude_patterns: pick('exclude_patterns') ?? CRAWL_DEFAULTS.exclude_patterns,
    max_cost_usd: pick('max_cost_usd') ?? null,
  };
}

const savedOptionsSchema = z
  .object({
    follow_pattern: z.string(),
    follow_selector: z.string(),
    max_depth: z.number().int(),
    max_pages: z.number().int(),
    same_domain_only: z.boolean(),
    use_sitemap: z.boolean(),
    respect_robots: z.boolean(),
    extract_from_seed: z.boolean(),
    concurrency: z.number().int(),
    delay_ms: z.number().int(),
    fetch_mode: z.enum(['auto', 'static', 'dynamic']),
    include_patterns: z.array(z.string()),
    exclude_patterns: z.array(z.string()),
    max_cost_usd: z.number(),
  })
  .partial();

/** A saved site's crawl options (validated when they were saved); anything unreadable is ignored. */
export function siteCrawlOptions(raw: unknown): Partial<CrawlOptions> {
  const parsed = savedOptionsSchema.safeParse(raw ?? {});
  return parsed.success ? parsed.data : {};
}
