import { Errors, type Warning } from '@app/core';
import type { FetchMode } from '@app/fetch';
import { refuseLearnedFromPrompt, type FieldsAt, type JobIntakeService } from '@app/intake';
import { formatsFetchProblem, formatsNeedModel, normaliseFormats, type PageFormatsPlan, type ScrapeFormat } from '@app/pages';
import type { JsonSchemaObject } from '@app/schema';
import { paginateInput, type Paginate, type PaginateDto } from '@app/extraction';
import type { Caller } from '@app/auth';
import type { CrawlJobInput } from '../crawl-input';

/** What a crawl or batch request says about what to keep of each page. */
export interface PagePlanFields {
  schema?: unknown;
  schema_id?: string;
  formats?: ScrapeFormat[];
  only_main_content?: boolean;
  include_tags?: string[];
  exclude_tags?: string[];
  full_page_screenshot?: boolean;
  prompt?: string;
  extraction_mode?: string;
  /** docs/long-lists.md "Pagination": only with a schema that has a list of objects, never with formats. */
  paginate?: PaginateDto;
}

/**
 * A schema to extract (with a model), formats to store (no model, no cost), or formats with the `json` format and its
 * schema (and prompt): what the job's input records. Its pages' `PagePlan` (@app/extraction) is made of it.
 */
export type PagesKept = (
  | { schema: JsonSchemaObject; schemaId: string | null; pageFormats: null; prompt: string | null }
  | { schema: null; schemaId: null; pageFormats: PageFormatsPlan; prompt: null }
  | { schema: JsonSchemaObject; schemaId: string | null; pageFormats: PageFormatsPlan; prompt: string | null }
) & {
  /** Each page's list read over its next pages (docs/long-lists.md "Pagination"); null without `paginate`. */
  paginate: Paginate | null;
  /** What the request's schema parsed with that deserves a look (libs/core warnings.ts): on every page's result. */
  warnings: Warning[];
};

/**
 * What a crawl or batch keeps of each page (docs/scrape.md "Crawls and batches"): with `formats` the
 * page as the scrape formats (no schema, no model; a site's default schema does not apply) unless they hold
 * `json`, which extracts the schema (given, by id, or the site's default) beside them; without `formats`,
 * the extraction of its schema. A schema beside formats without `json` is a 422 (it would be unused), and so is
 * a prompt without `json` beside formats. A prompt and no schema (with `json`, or without formats) leaves each page's
 * schema to the model (SCHEMA_FROM_PROMPT). `at`: where the request gave `schema_id` (a batch's URL list body leaves it
 * to the query).
 */
export async function pagePlan(
  intake: JobIntakeService,
  caller: Caller,
  fields: PagePlanFields,
  fetchMode: FetchMode,
  siteDefaultSchema: string | null,
  at: FieldsAt = 'body',
): Promise<PagesKept> {
  if (fields.formats === undefined) {
    const stray = (['only_main_content', 'include_tags', 'exclude_tags', 'full_page_screenshot'] as const).filter(
      (name) => fields[name] !== undefined,
    );
    if (stray.length > 0)
      throw Errors.validation(stray.map((name) => ({ location: `body.${name}`, message: 'is only for a request with formats' })));
    // Nothing says what to keep: name both ways (a list body's query has no formats; the intake's 422 says what it takes).
    if (at === 'body' && isAbsent(fields.schema) && isAbsent(fields.schema_id) && !siteDefaultSchema && fields.prompt === undefined) {
      throw Errors.validation([
        {
          location: 'body.schema',
          message:
            'is required: give a schema (or a schema_id, or a site_id of a site with a default schema, or a prompt) to extract each page with a model, ' +
            'or formats (e.g. ["markdown"]) to keep each page as it is, without a model (docs/scrape.md "Crawls and batches without a schema")',
        },
      ]);
    }
    const { parsed, schemaId } = await intake.schema(caller, fields, siteDefaultSchema, at);
    refuseLearnedFromPrompt(parsed.jsonSchema, fields.extraction_mode);
    const paginate = paginateInput(fields.paginate, parsed.jsonSchema);
    return {
      schema: parsed.jsonSchema,
      schemaId,
      pageFormats: null,
      prompt: fields.prompt ?? null,
      paginate,
      warnings: parsed.warnings ?? [],
    };
  }
  if (fields.paginate !== undefined)
    throw Errors.validation([
      {
        location: 'body.paginate',
        message: 'is for a request that extracts a schema without formats: a page kept as formats has no list to follow over pages',
      },
    ]);
  const formats = normaliseFormats(fields.formats);
  const problem = formatsFetchProblem(formats, fetchMode);
  if (problem) throw Errors.validation([{ location: 'body.formats', message: problem }]);
  const pageFormats: PageFormatsPlan = {
    formats,
    only_main_content: fields.only_main_content ?? true,
    full_page_screenshot: fields.full_page_screenshot ?? false,
    ...(fields.include_tags?.length ? { include_tags: fields.include_tags } : {}),
    ...(fields.exclude_tags?.length ? { exclude_tags: fields.exclude_tags } : {}),
  };
  if (formatsNeedModel(formats)) {
    if (at === 'body' && isAbsent(fields.schema) && isAbsent(fields.schema_id) && !siteDefaultSchema && fields.prompt === undefined) {
      throw Errors.validation([
        {
          location: 'body.schema',
          message: 'is required with the json format (or a schema_id, or a site_id of a site with a default schema, or a prompt)',
        },
      ]);
    }
    const { parsed, schemaId } = await intake.schema(caller, fields, siteDefaultSchema, at);
    refuseLearnedFromPrompt(parsed.jsonSchema, fields.extraction_mode);
    return {
      schema: parsed.jsonSchema,
      schemaId,
      pageFormats,
      prompt: fields.prompt ?? null,
      paginate: null,
      warnings: parsed.warnings ?? [],
    };
  }
  const both = (['schema', 'schema_id'] as const).filter((name) => fields[name] !== undefined && fields[name] !== null);
  if (both.length > 0) {
    throw Errors.validation([
      {
        location: 'body.formats',
        message: `is without the json format, so ${both.join(' and ')} would be unused: add "json" to formats to extract it beside them, or drop ${both.join(' and ')}`,
      },
    ]);
  }
  if (fields.prompt !== undefined)
    throw Errors.validation([{ location: 'body.prompt', message: 'is only for a request with the json format (in formats)' }]);
  return { schema: null, schemaId: null, prompt: null, paginate: null, warnings: [], pageFormats };
}

function isAbsent(value: unknown): boolean {
  return value === undefined || value === null;
}

/**
 * The job input a crawl or a batch records of its plan, in the order it is stored (a batch adds its `source`):
 * the first URL, what to keep of each page, the request's warnings, its site, model and options.
 */
export function plannedInput(
  url: string,
  plan: PagesKept,
  job: Pick<CrawlJobInput, 'site_id' | 'llm_config' | 'options' | 'extraction_mode'>,
): CrawlJobInput {
  return {
    url,
    schema: plan.schema,
    schema_id: plan.schemaId,
    page_formats: plan.pageFormats,
    ...(plan.prompt !== null ? { prompt: plan.prompt } : {}),
    ...(plan.paginate ? { paginate: plan.paginate } : {}),
    warnings: plan.warnings,
    site_id: job.site_id,
    llm_config: job.llm_config,
    options: job.options,
    extraction_mode: job.extraction_mode,
  };
}
