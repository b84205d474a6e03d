import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors, newId, type FieldError } from '@app/core';
import { splitOptionsFetchControl } from '@app/fetch';
import { UrlListBody, type ListedUrl } from '@app/http';
import { JobIntakeService, type FieldsAt } from '@app/intake';
import { publicBaseUrl, type RequestOrigin } from '@app/results';
import {
  CRAWL_OPTION_DEFAULTS,
  resolveCrawlOptions,
  validCrawlOptions,
  withSavedSecrets,
  type CrawlOptions,
  type CrawlOptionsLayer,
} from '@app/sites';
import type { CrawlJobInput } from '../crawl-input';
import { CrawlRepository } from '../crawl.repository';
import { canonicalize, canonRulesOf, DEFAULT_CANON, type CanonRules } from '../url-canon';
import type { BatchDuplicate, BatchListQuery, BatchRequestDto } from './dto/batch-request.dto';
import { pagePlan, plannedInput, type PagePlanFields } from './page-plan';

/** Invalid URLs listed in one 422 (the count says how many more there were). */
const MAX_URL_ERRORS = 100;
/** Duplicates listed in the answer (all are counted). */
const MAX_DUPLICATES_LISTED = 1000;

export interface BatchAnswer {
  location: string;
  body: {
    job_id: string;
    status: string;
    status_url: string;
    url_count: number;
    duplicate_count: number;
    duplicates: BatchDuplicate[];
  };
}

/** The URLs of a list, checked and deduplicated. */
interface CheckedList {
  urls: string[];
  duplicates: BatchDuplicate[];
  duplicateCount: number;
  /** Each kept URL's index and text as listed (parallel to `urls`): the batch's own canonical rules are applied to them once its options are known. */
  listed: Array<{ index: number; url: string }>;
}

/**
 * API side of POST /batch/extract (docs/crawl.md "Batches"): a URL list (a JSON body, or a streamed
 * text/plain or ndjson body with the schema and options by saved ids) becomes a `batch` job on the crawl
 * engine. Each URL is checked (an invalid one is a 422 at its index) and normalised as the crawl does;
 * duplicates are removed and reported. The list is stored in chunks before the job is queued; the owner
 * reads it (owner/list-seeding.ts). Forbidden addresses are not refused here: they fail as their own
 * pages under the address guard, the rest of the batch goes on.
 */
@Injectable()
export class BatchRequestsService {
  constructor(
    private readonly intake: JobIntakeService,
    private readonly repository: CrawlRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async start(
    caller: Caller,
    body: BatchRequestDto | UrlListBody,
    query: BatchListQuery,
    requestId: string,
    origin: RequestOrigin,
  ): Promise<BatchAnswer> {
    if (body instanceof UrlListBody) return this.fromList(caller, body, query, requestId, origin);
    return this.fromJson(caller, body, query, requestId, origin);
  }

  private fromJson(
    caller: Caller,
    body: BatchRequestDto,
    query: BatchListQuery,
    requestId: string,
    origin: RequestOrigin,
  ): Promise<BatchAnswer> {
    // With a JSON body the query's ids fill the body's fields of the same name it leaves out (the document
    // states these parameters for every media type); the same field with two values is a 422.
    const clashes = (['schema_id', 'site_id', 'extraction_mode', 'webhook_id'] as const).filter(
      (name) => query[name] !== undefined && body[name] !== undefined && query[name] !== body[name],
    );
    if (clashes.length > 0) {
      throw Errors.validation(
        clashes.map((name) => ({ location: `query.${name}`, message: `differs from body.${name}; give one of them`, value: query[name] })),
      );
    }
    body = {
      ...body,
      schema_id: body.schema_id ?? query.schema_id,
      site_id: body.site_id ?? query.site_id,
      extraction_mode: body.extraction_mode ?? query.extraction_mode,
      webhook_id: body.webhook_id ?? query.webhook_id,
    };
    const list = checkList(
      body.urls.map((url, index) => ({ index, line: index + 1, url })),
      (index) => `body.urls[${index}]`,
    );
    if (body.max_cost_usd !== undefined && body.options?.max_cost_usd !== undefined && body.max_cost_usd !== body.options.max_cost_usd) {
      throw Errors.validation([
        { location: 'body.max_cost_usd', message: 'differs from options.max_cost_usd; give one of them', value: body.max_cost_usd },
      ]);
    }
    return this.submit(
      caller,
      list,
      {
        schema: body.schema,
        schema_id: body.schema_id,
        formats: body.formats,
        only_main_content: body.only_main_content,
        include_tags: body.include_tags,
        exclude_tags: body.exclude_tags,
        full_page_screenshot: body.full_page_screenshot,
        prompt: body.prompt,
        paginate: body.paginate,
        site_id: body.site_id,
        options: { ...body.options, ...(body.max_cost_usd !== undefined ? { max_cost_usd: body.max_cost_usd } : {}) },
        llm_config: body.llm_config,
        extraction_mode: body.extraction_mode,
        capture_debug: body.capture_debug,
        webhooks: body,
      },
      requestId,
      origin,
      'body.urls',
    );
  }

  private fromList(
    caller: Caller,
    body: UrlListBody,
    query: BatchListQuery,
    requestId: string,
    origin: RequestOrigin,
  ): Promise<BatchAnswer> {
    if (body.urls.length === 0) throw Errors.validation([{ location: 'body', message: 'must list at least one URL' }]);
    const list = checkList(body.urls, (_index, line) => `body.lines[${line}]`);
    return this.submit(
      caller,
      list,
      {
        schema_id: query.schema_id,
        site_id: query.site_id,
        options: {},
        extraction_mode: query.extraction_mode,
        webhooks: query.webhook_id ? { webhook_id: query.webhook_id } : undefined,
        fieldsAt: 'query',
      },
      requestId,
      origin,
      'body',
    );
  }

  private async submit(
    caller: Caller,
    checked: CheckedList,
    request: BatchFields,
    requestId: string,
    origin: RequestOrigin,
    /** Where a problem with the list as a whole is reported: `body.urls` (JSON) or `body` (a list body). */
    listLocation: string,
  ): Promise<BatchAnswer> {
    let list = checked;
    if (list.urls.length > this.config.batchMaxUrls) {
      throw Errors.validation([
        { location: 'body.urls', message: `must have at most ${this.config.batchMaxUrls} distinct URLs (GLEANER_BATCH_MAX_URLS)` },
      ]);
    }
    const at = request.fieldsAt ?? 'body';
    const site = await this.intake.site(caller, request.site_id, at);
    const saved = validCrawlOptions(site?.crawl_options);
    const { options: resolved, secrets } = splitOptionsFetchControl(
      batchOptions(list.urls.length, withSavedSecrets(request.options, this.intake.siteSecrets(site, list.urls, listLocation)), {
        ...saved,
        fetch_mode: saved.fetch_mode ?? site?.fetch_mode,
      }),
      'body.options',
    );
    // `canonicalize: strict` or `ignore_query_params` (the request's or the saved site's): the list deduplicated by them too.
    list = withCanonRules(list, canonRulesOf(resolved));
    const options = { ...resolved, max_pages: list.urls.length };
    await this.intake.authProfile(
      caller,
      options.auth_profile,
      request.options?.auth_profile ? 'body.options.auth_profile' : `${at}.site_id`,
    );
    const plan = await pagePlan(this.intake, caller, request, options.fetch_mode, site?.default_schema_id ?? null, at);
    const listId = `list_${newId()}`;
    const job = await this.intake.submit<CrawlJobInput>(caller, {
      type: 'batch',
      url: list.urls[0],
      input: (llmConfig) => ({
        ...plannedInput(list.urls[0], plan, {
          site_id: site?._id ?? null,
          llm_config: llmConfig,
          options,
          extraction_mode: request.extraction_mode ?? 'model',
        }),
        source: { kind: 'list', list_id: listId, urls: list.urls.length, duplicates: list.duplicateCount },
      }),
      captureDebug: request.capture_debug ?? false,
      requestId,
      webhooks: request.webhooks,
      fieldsAt: at,
      llmConfig: request.llm_config,
      requireModel: plan.schema !== null,
      secrets,
      beforeCreate: async () => {
        await this.repository.lists.storeList(listId, caller.userId, list.urls);
      },
    });
    const statusUrl = `${publicBaseUrl(this.config.publicUrl, origin, this.config.port)}/api/v1/jobs/${job.id}`;
    return {
      location: statusUrl,
      body: {
        job_id: job.id,
        status: job.status,
        status_url: statusUrl,
        url_count: list.urls.length,
        duplicate_count: list.duplicateCount,
        duplicates: list.duplicates,
      },
    };
  }
}

type BatchFields = PagePlanFields & {
  site_id?: string;
  options: CrawlOptionsLayer;
  llm_config?: BatchRequestDto['llm_config'];
  extraction_mode?: BatchRequestDto['extraction_mode'];
  capture_debug?: boolean;
  webhooks?: Parameters<JobIntakeService['submit']>[1]['webhooks'];
  /** A URL list body: the saved ids came in the query, and a 422 names them there. */
  fieldsAt?: FieldsAt;
};

/**
 * Each URL checked (an http(s) URL; every bad one reported at its place, the first MAX_URL_ERRORS of
 * them) and normalised as the crawl does; a URL normalising to one already listed is a duplicate.
 */
export function checkList(
  urls: ListedUrl[],
  locate: (index: number, line: number) => string,
  rules: CanonRules = DEFAULT_CANON,
): CheckedList {
  const errors: FieldError[] = [];
  let bad = 0;
  const firstIndex = new Map<string, number>();
  const out: string[] = [];
  const duplicates: BatchDuplicate[] = [];
  const listed: CheckedList['listed'] = [];
  let duplicateCount = 0;
  for (const { index, line, url } of urls) {
    const target = url.length <= 2048 ? canonicalize(url, undefined, rules) : null;
    if (!target) {
      bad++;
      if (errors.length < MAX_URL_ERRORS)
        errors.push({
          location: locate(index, line),
          message: 'must be an absolute http or https URL (at most 2048 characters)',
          value: url.slice(0, 200),
        });
      continue;
    }
    const first = firstIndex.get(target.key);
    if (first !== undefined) {
      duplicateCount++;
      if (duplicates.length < MAX_DUPLICATES_LISTED) duplicates.push({ index, url, first_index: first });
      continue;
    }
    firstIndex.set(target.key, index);
    out.push(target.url);
    listed.push({ index, url });
  }
  if (bad > 0) {
    throw Errors.validation(
      errors,
      bad > errors.length ? `The list has ${bad} invalid URLs; errors[] shows the first ${errors.length}.` : undefined,
    );
  }
  return { urls: out, duplicates, duplicateCount, listed };
}

/**
 * A checked list deduplicated again by a batch's own canonical rules (docs/crawl.md "Canonical addresses"): the
 * URLs that become one under them are duplicates too, reported after the ones the default rules found.
 */
export function withCanonRules(list: CheckedList, rules: CanonRules): CheckedList {
  if (!rules.strict && rules.ignore.length === 0) return list;
  const again = checkList(
    list.listed.map(({ index, url }) => ({ index, line: index + 1, url })),
    () => 'body',
    rules,
  );
  const room = Math.max(0, MAX_DUPLICATES_LISTED - list.duplicates.length);
  return {
    ...again,
    duplicates: [...list.duplicates, ...again.duplicates.slice(0, room)],
    duplicateCount: list.duplicateCount + again.duplicateCount,
  };
}

/** A batch's crawl options: the request's over the site's over the defaults, and those a list fixes (one page per URL, no link followed). */
export function batchOptions(urlCount: number, ...layers: CrawlOptionsLayer[]): CrawlOptions {
  const resolved = resolveCrawlOptions(...layers);
  return {
    ...resolved,
    follow_pattern: null,
    follow_selector: null,
    max_depth: 0,
    max_pages: urlCount,
    same_domain_only: false,
    use_sitemap: false,
    extract_from_seed: CRAWL_OPTION_DEFAULTS.extract_from_seed,
    include_patterns: [],
    exclude_patterns: [],
  };
}
