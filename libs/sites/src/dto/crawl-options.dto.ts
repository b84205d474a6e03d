import { ApiPropertyOptional } from '@nestjs/swagger';
import { plainToInstance } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  Length,
  Max,
  MaxLength,
  Min,
  registerDecorator,
  validateSync,
  type ValidationOptions,
} from 'class-validator';
import { applyDecorators } from '@nestjs/common';
import {
  FETCH_CONTROL_DEFAULTS,
  FETCH_MODES,
  IsCssSelector,
  keptStoredFetchControl,
  resolveFetchControl,
  WithFetchControl,
  type FetchControlFields,
  type FetchMode,
} from '@app/fetch';
import { crawlMaxPagesSetting } from '@app/config';
import { stackedDecorators } from '@app/http';
import { GROUNDING_POLICIES, PROVENANCE_DEFAULTS, PROVENANCE_MODES, type GroundingPolicy, type ProvenanceMode } from '@app/provenance';
import { checkPattern } from '../url-rules';

/** How far two addresses are taken for one page (docs/crawl.md "Canonical addresses"). */
export const CANONICALIZE_MODES = ['default', 'strict'] as const;
export type CanonicalizeMode = (typeof CANONICALIZE_MODES)[number];
/** Which pages of a crawl are taken for copies of an earlier one before the model is called (docs/dedup.md). */
export const DEDUPE_MODES = ['off', 'exact', 'near'] as const;
export type DedupeMode = (typeof DEDUPE_MODES)[number];

/**
 * Server-side caps (docs/api.md "Crawl options"); over a cap is a 422. `maxPages` is the operator's
 * GLEANER_CRAWL_MAX_PAGES (default 100,000; docs/crawl.md "Crawls past 100,000 pages").
 */
export const CRAWL_CAPS = { maxDepth: 10, maxPages: crawlMaxPagesSetting(), concurrency: 32 } as const;

/** What an absent crawl option means (the document shows each as its `default`). */
export const CRAWL_OPTION_DEFAULTS = {
  follow_pattern: null,
  follow_selector: null,
  max_depth: 1,
  max_pages: 10,
  same_domain_only: true,
  use_sitemap: false,
  respect_robots: true,
  extract_from_seed: true,
  concurrency: 4,
  delay_ms: 0,
  fetch_mode: 'auto',
  include_patterns: [],
  exclude_patterns: [],
  max_cost_usd: null,
  archive: true,
  canonicalize: 'default',
  ignore_query_params: [],
  dedupe: 'off',
  copy_duplicates: false,
  ...FETCH_CONTROL_DEFAULTS,
  provenance: PROVENANCE_DEFAULTS.provenance,
  grounding: PROVENANCE_DEFAULTS.grounding,
} as const satisfies Record<keyof CrawlOptionsDto, unknown>;

/** `include_patterns` and `exclude_patterns`: up to 50 RE2 patterns URLs are matched against. */
function UrlPatternsProperty(): PropertyDecorator {
  return stackedDecorators(
    ApiPropertyOptional({ type: [String], maxItems: 50 }),
    IsOptional(),
    IsArray(),
    ArrayMaxSize(50),
    IsString({ each: true }),
    MaxLength(1000, { each: true }),
    IsRe2Pattern({ each: true }),
  );
}

/**
 * The `provenance` option (docs/provenance.md "Options"): one definition for crawl options, saved sites and
 * POST /extract.
 */
export function ProvenanceProperty(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      enum: PROVENANCE_MODES,
      default: PROVENANCE_DEFAULTS.provenance,
      description:
        "How much of each value's provenance result items carry in `metadata.fields`: `off` none, `summary` (default) " +
        '`source` and `grounded` per value, `full` also the learned selector, the evidence (a snippet and its offsets in the ' +
        'text the model saw) and the reason for a null or an unchecked value (docs/provenance.md).',
    }),
    IsOptional(),
    IsIn(PROVENANCE_MODES, { message: `must be one of: ${PROVENANCE_MODES.join(', ')}` }),
  );
}

/** The `grounding` policy option (docs/provenance.md "Policies"). */
export function GroundingProperty(): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({
      enum: GROUNDING_POLICIES,
      default: PROVENANCE_DEFAULTS.grounding,
      description:
        'What a value not found on the page does: `report` (default) keeps it with `grounded: false`, `null_ungrounded` ' +
        'replaces it by null, `fail_page` fails the page with error_category `ungrounded_output`. Every page counts its ' +
        '`ungrounded_fields` whatever the policy.',
    }),
    IsOptional(),
    IsIn(GROUNDING_POLICIES, { message: `must be one of: ${GROUNDING_POLICIES.join(', ')}` }),
  );
}

export function IsRe2Pattern(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isRe2Pattern',
      target: target.constructor,
      propertyName,
      options: { message: 'must be a valid RE2 regular expression (no backreferences or lookaround)', ...options },
      validator: { validate: (value: unknown) => typeof value === 'string' && checkPattern(value) === null },
    });
}

/** The crawl options before the fetch control group (CrawlOptionsDto adds it, then the provenance options). */
class CrawlScopeOptions {
  @ApiPropertyOptional({ example: '^https://quotes\\.example/page/\\d+/$', description: 'RE2 regex on absolute URLs of links to follow.' })
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  @IsRe2Pattern()
  follow_pattern?: string;

  @ApiPropertyOptional({
    example: 'li.next a',
    description:
      'CSS selector of the links to follow (a matched link, or the links inside a matched element); other links are not followed.',
  })
  @IsOptional()
  @IsString()
  @Length(1, 500)
  @IsCssSelector()
  follow_selector?: string;

  @ApiPropertyOptional({ minimum: 0, maximum: CRAWL_CAPS.maxDepth, default: CRAWL_OPTION_DEFAULTS.max_depth })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(CRAWL_CAPS.maxDepth)
  max_depth?: number;

  @ApiPropertyOptional({ minimum: 1, maximum: CRAWL_CAPS.maxPages, default: CRAWL_OPTION_DEFAULTS.max_pages })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_CAPS.maxPages)
  max_pages?: number;

  @ApiPropertyOptional({ default: CRAWL_OPTION_DEFAULTS.same_domain_only }) @IsOptional() @IsBoolean() same_domain_only?: boolean;
  @ApiPropertyOptional({ default: CRAWL_OPTION_DEFAULTS.use_sitemap }) @IsOptional() @IsBoolean() use_sitemap?: boolean;
  @ApiPropertyOptional({ default: CRAWL_OPTION_DEFAULTS.respect_robots }) @IsOptional() @IsBoolean() respect_robots?: boolean;
  @ApiPropertyOptional({ default: CRAWL_OPTION_DEFAULTS.extract_from_seed }) @IsOptional() @IsBoolean() extract_from_seed?: boolean;

  @ApiPropertyOptional({ minimum: 1, maximum: CRAWL_CAPS.concurrency, default: CRAWL_OPTION_DEFAULTS.concurrency })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(CRAWL_CAPS.concurrency)
  concurrency?: number;

  @ApiPropertyOptional({ minimum: 0, maximum: 60_000, default: CRAWL_OPTION_DEFAULTS.delay_ms })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(60_000)
  delay_ms?: number;

  @ApiPropertyOptional({ enum: FETCH_MODES, default: CRAWL_OPTION_DEFAULTS.fetch_mode })
  @IsOptional()
  @IsIn(FETCH_MODES)
  fetch_mode?: FetchMode;

  @UrlPatternsProperty()
  include_patterns?: string[];

  @UrlPatternsProperty()
  exclude_patterns?: string[];

  @ApiPropertyOptional({
    minimum: 0,
    maximum: 10_000,
    description:
      'Cost cap in USD: at the cap no new page starts; pages in flight finish. The job ends completed, error_category budget_exceeded.',
    example: 0.5,
  })
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(10_000)
  max_cost_usd?: number;

  @ApiPropertyOptional({
    default: CRAWL_OPTION_DEFAULTS.archive,
    description:
      'Keep every fetched page (status, headers, redirects, body) in the archive for GLEANER_ARCHIVE_TTL_DAYS, so the job can be re-extracted without fetching again (POST /jobs/{id}/reextract), its pages read back (GET /jobs/{id}/results/{result_id}/page) and exported as WARC. Costs storage: the compressed body once per distinct page per tenant (docs/archive.md). On a saved site it applies to the extracts naming the site too (their own default is `false`).',
  })
  @IsOptional()
  @IsBoolean()
  archive?: boolean;

  @ApiPropertyOptional({
    enum: CANONICALIZE_MODES,
    default: CRAWL_OPTION_DEFAULTS.canonicalize,
    description:
      'Which addresses are one page (docs/crawl.md "Canonical addresses"). `default`: scheme and host case, default ports, fragments and ' +
      'escapes only (trailing slashes and query order are kept). `strict` also drops known tracking parameters (`utm_*`, `gclid`, ' +
      '`fbclid`, ...), sorts the query by name, and takes `www.` and the bare host for one once the site shows it (a redirect between ' +
      'them, or rel=canonical). A batch removes and reports the URLs that become one.',
  })
  @IsOptional()
  @IsIn(CANONICALIZE_MODES, { message: `must be one of: ${CANONICALIZE_MODES.join(', ')}` })
  canonicalize?: CanonicalizeMode;

  @ApiPropertyOptional({
    type: [String],
    maxItems: 50,
    example: ['sort', 'view'],
    description:
      'Query parameters (exact names, 1-100 characters) that never make a page of their own: dropped from every address, whatever `canonicalize`.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(50)
  @IsString({ each: true })
  @Length(1, 100, { each: true })
  ignore_query_params?: string[];

  @ApiPropertyOptional({
    enum: DEDUPE_MODES,
    default: CRAWL_OPTION_DEFAULTS.dedupe,
    description:
      'Pages whose text repeats an earlier page of the job get no model call (docs/dedup.md): `off` (default), `exact` (the same ' +
      'normalised text), `near` (also a near-duplicate: MinHash of word 3-shingles, estimated similarity at least 0.85). A duplicate ' +
      'is a `skipped` entry of the crawl map (`duplicate`) naming its original in `duplicate_of`; it does not count toward `max_pages`.',
  })
  @IsOptional()
  @IsIn(DEDUPE_MODES, { message: `must be one of: ${DEDUPE_MODES.join(', ')}` })
  dedupe?: DedupeMode;

  @ApiPropertyOptional({
    default: CRAWL_OPTION_DEFAULTS.copy_duplicates,
    description:
      "A page skipped as a duplicate (rel=canonical, `dedupe`, a redirect) gets a result item of its own: a copy of its original's " +
      '(its `data`, no tokens or cost), with `metadata.duplicate_of`, stored when the crawl ends (docs/dedup.md). Off (default): ' +
      "the duplicate has no item; the crawl map's `duplicate_of` names the original whose item stands for it.",
  })
  @IsOptional()
  @IsBoolean()
  copy_duplicates?: boolean;
}

/** The crawl options up to the fetch control group, the provenance options after it. */
class CrawlOptionsFields extends WithFetchControl(CrawlScopeOptions, "the crawl's seed host (a batch: each listed URL's own host)") {
  @ProvenanceProperty()
  provenance?: ProvenanceMode;

  @GroundingProperty()
  grounding?: GroundingPolicy;
}

/**
 * Crawl options as saved on a site and accepted by POST /crawl: the one definition of every option, its
 * rules and its default (docs/api.md "One source"). Absent fields take the defaults. The resolved form a
 * crawl runs with (CrawlOptions) and the reading of stored options derive from it. The fetch control
 * options are the fetch lib's group (WithFetchControl), their headers and cookies for the crawl's seed host.
 * It declares no field of its own: class-validator lists a class's own fields before its inherited ones,
 * and the OpenAPI document and a 422's `errors` follow the options in the order above.
 */
export class CrawlOptionsDto extends CrawlOptionsFields {}

/** The options a crawl runs with: every option present, `null` where an optional one is absent. */
export type CrawlOptions = {
  -readonly [K in keyof CrawlOptionsDto]-?: K extends NullableOption
    ? NonNullable<CrawlOptionsDto[K]> | null
    : NonNullable<CrawlOptionsDto[K]>;
};

/** Options whose absence is `null` (no pattern, no selector, no cost cap, no fetch control) rather than a default value. */
type NullableOption = 'follow_pattern' | 'follow_selector' | 'max_cost_usd' | keyof FetchControlFields;

/** A layer of options (a request's, a site's): any option may be absent or null. */
export type CrawlOptionsLayer = { [K in keyof CrawlOptionsDto]?: CrawlOptionsDto[K] | null };

/** Request options over a site's saved options over the defaults; absent (or null) fields fall through. */
export function resolveCrawlOptions(...layers: Array<CrawlOptionsLayer | undefined>): CrawlOptions {
  const first = <T>(values: T[]): NonNullable<T> | null => values.find((v): v is NonNullable<T> => v !== undefined && v !== null) ?? null;
  const of = <K extends keyof CrawlOptionsDto>(key: K) => first(layers.map((layer) => layer?.[key]));
  const d = CRAWL_OPTION_DEFAULTS;
  return {
    follow_pattern: of('follow_pattern'),
    follow_selector: of('follow_selector'),
    max_depth: of('max_depth') ?? d.max_depth,
    max_pages: of('max_pages') ?? d.max_pages,
    same_domain_only: of('same_domain_only') ?? d.same_domain_only,
    use_sitemap: of('use_sitemap') ?? d.use_sitemap,
    respect_robots: of('respect_robots') ?? d.respect_robots,
    extract_from_seed: of('extract_from_seed') ?? d.extract_from_seed,
    concurrency: of('concurrency') ?? d.concurrency,
    delay_ms: of('delay_ms') ?? d.delay_ms,
    fetch_mode: of('fetch_mode') ?? d.fetch_mode,
    include_patterns: of('include_patterns') ?? [...d.include_patterns],
    exclude_patterns: of('exclude_patterns') ?? [...d.exclude_patterns],
    max_cost_usd: of('max_cost_usd'),
    archive: of('archive') ?? d.archive,
    canonicalize: of('canonicalize') ?? d.canonicalize,
    ignore_query_params: of('ignore_query_params') ?? [...d.ignore_query_params],
    dedupe: of('dedupe') ?? d.dedupe,
    copy_duplicates: of('copy_duplicates') ?? d.copy_duplicates,
    ...resolveFetchControl(of),
    provenance: of('provenance') ?? d.provenance,
    grounding: of('grounding') ?? d.grounding,
  };
}

/**
 * The options of `raw` that pass the DTO's own rules (stored options: a site's, a job's). A field that
 * fails them is left out (it takes the default when resolved); `null` is absent. The exceptions are the fetch
 * control module's (keptStoredFetchControl): a named proxy pool is kept even when this process knows no such pool
 * (never fetch directly what was meant to go through one).
 */
export function validCrawlOptions(raw: unknown): Partial<CrawlOptionsDto> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const present = Object.fromEntries(Object.entries(raw).filter(([, value]) => value !== null && value !== undefined));
  const dto = plainToInstance(CrawlOptionsDto, present);
  const bad = new Set(validateSync(dto, { whitelist: true }).map((error) => error.property));
  const valid: Record<string, unknown> = {};
  // The instance declares every option (as undefined when absent): only those given count.
  for (const [key, value] of Object.entries(dto))
    if (value !== undefined && !bad.has(key) && key in CRAWL_OPTION_DEFAULTS) valid[key] = value;
  // What the fetch control module keeps though this process would refuse it (a proxy pool the operator removed).
  return { ...valid, ...keptStoredFetchControl(present) };
}
