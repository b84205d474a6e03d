import { Injectable } from '@nestjs/common';
import { analyzePage, type AnalysisHeuristics } from '@app/analysis';
import { AppError } from '@app/core';
import { detectNeedsJs, type FetchResult } from '@app/fetch';
import type { JobContext, JobHandler } from '@app/jobs';
import { ResultsService } from '@app/results';
import { parseSchema, type JsonSchemaObject } from '@app/schema';
import { ExtractionFailure, ExtractionService, type ExtractOutput } from './extraction.service';
import { captureRecorder, finalJobError } from './handler-support';
import { llmConfigFor } from '@app/intake';
import { PageLoaderService } from '@app/pages';
import { parseAnalyzeInput, type AnalyzeJobInput } from './job-inputs';

/** What the model is asked on top of the heuristics: a page type, a summary and a schema to extract. */
const SUGGESTION_SCHEMA: JsonSchemaObject = {
  type: 'object',
  properties: {
    page_type: { type: 'string', description: 'listing, detail, article, product, search, home or other' },
    site_summary: { type: 'string', description: 'One or two sentences on what the site and this page offer.' },
    suggested_schema: {
      type: 'string',
      description:
        'A YAML schema in shorthand form (field: type; lists as [type] or [{...}]) for the data worth extracting from pages like this.',
    },
  },
  required: ['page_type', 'site_summary', 'suggested_schema'],
  additionalProperties: false,
};

const MAX_LINKED_PAGES = 3;

/**
 * Runs an `analyze` job: fetches the page statically and (unless static-only) rendered, reads its
 * structure with the heuristics (repeated elements, follow patterns, fetch mode), asks the model
 * for a page type, summary and schema (the heuristic schema is the fallback when the model's does
 * not parse), and extracts `sample_data` with that schema. Depth 1 looks at a few linked pages.
 */
@Injectable()
export class AnalyzeJobHandler implements JobHandler<AnalyzeJobInput> {
  readonly type = 'analyze';
  readonly parseInput = parseAnalyzeInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly extraction: ExtractionService,
    private readonly results: ResultsService,
  ) {}

  async run({ job, input, signal, jobs, secrets }: JobContext<AnalyzeJobInput>): Promise<void> {
    const llmConfig = llmConfigFor(input.llm_config, secrets);
    const { staticPage, rendered, staticError } = await this.fetchBoth(input, signal);
    const primary = rendered ?? staticPage!;
    const content = await this.loader.convert(primary, 'full');
    const heuristics = analyzePage({
      html: staticPage?.html ?? primary.html,
      url: primary.url,
      links: content.links,
      metadata: {
        title: content.metadata.title,
        description: content.metadata.description,
        jsonLd: content.metadata.jsonLd,
        openGraph: content.metadata.openGraph,
      },
      rendered: rendered ? { html: rendered.html } : null,
      staticError,
    });
    const linkedPages = input.depth >= 1 ? await this.analyzeLinked(heuristics, input, signal) : [];

    const onCall = captureRecorder(
      this.results,
      job,
      {
        url: primary.url,
        fetchMode: primary.mode,
        schema: JSON.stringify(SUGGESTION_SCHEMA),
        hints: {
          page_type: heuristics.pageType,
          recommended_fetch_mode: heuristics.recommendedFetchMode,
          repeated_elements: String(heuristics.detectedElements.length),
        },
      },
      secrets,
    );
    const spent: ExtractOutput[] = [];
    try {
      const suggestion = await this.extraction.extract({
        userId: job.user_id,
        url: primary.url,
        content: content.markdown,
        schema: SUGGESTION_SCHEMA,
        llmConfig,
        signal,
        onCall,
        instructions: hintsFor(heuristics),
      });
      spent.push(suggestion);
      const suggested = suggestion.data as { page_type: string; site_summary: string; suggested_schema: string };
      const schemaText = usableSchema(suggested.suggested_schema) ? suggested.suggested_schema : heuristics.suggestedSchema;
      const sample = await this.extraction.extract({
        userId: job.user_id,
        url: primary.url,
        content: content.markdown,
        schema: parseSchema(schemaText, 'suggested_schema').jsonSchema,
        llmConfig,
        signal,
        onCall,
      });
      spent.push(sample);
      const result = {
        page_type: suggested.page_type || heuristics.pageType,
        site_summary: suggested.site_summary || heuristics.siteSummary,
        recommended_fetch_mode: recommendedMode(heuristics, staticPage, rendered),
        suggested_schema: schemaText,
        sample_links: heuristics.sampleLinks,
        detected_elements: heuristics.detectedElements.map((e) => ({
          name: e.name,
          type: e.type,
          description: e.description,
          count: e.count,
        })),
        follow_patterns: heuristics.followPatterns.map((p) => ({
          pattern: p.pattern,
          description: p.description,
          sample_urls: p.sample_urls,
        })),
        sample_data: sample.data,
        ...(input.depth >= 1 ? { linked_pages: linkedPages } : {}),
      };
      await this.results.record(job, {
        url: primary.url,
        status: 'completed',
        data: result,
        depth: 0,
        parent_url: null,
        token_usage_input: sum(spent, (s) => s.usage.inputTokens),
        token_usage_output: sum(spent, (s) => s.usage.outputTokens),
        llm_model: sample.target.model,
        llm_provider: sample.target.provider,
        cost_usd: sum(spent, (s) => s.costUsd),
      });
      await jobs.recordUsage(
        job._id,
        {
          page_count: 1,
          token_usage_input: sum(spent, (s) => s.usage.inputTokens),
          token_usage_output: sum(spent, (s) => s.usage.outputTokens),
          cost_usd: sum(spent, (s) => s.costUsd),
          llm_cost_usd: sum(spent, (s) => s.llmCostUsd),
        },
        { attempts: spent.flatMap((s) => s.attempts) },
      );
    } catch (error) {
      if (error instanceof ExtractionFailure && error.summary) {
        spent.push({ ...error.summary, data: null, target: undefined as never, contentTruncated: false });
        await jobs.recordUsage(job._id, {
          failed_count: 1,
          token_usage_input: sum(spent, (s) => s.usage.inputTokens),
          token_usage_output: sum(spent, (s) => s.usage.outputTokens),
          cost_usd: sum(spent, (s) => s.costUsd),
          llm_cost_usd: sum(spent, (s) => s.llmCostUsd),
        });
      }
      throw finalJobError(error, 'Analysis');
    }
  }

  private async fetchBoth(
    input: AnalyzeJobInput,
    signal: AbortSignal,
  ): Promise<{ staticPage: FetchResult | null; rendered: FetchResult | null; staticError?: string }> {
    let staticPage: FetchResult | null = null;
    let staticError: string | undefined;
    let failure: unknown;
    if (input.fetch_mode !== 'dynamic') {
      try {
        staticPage = await this.loader.fetcher.fetch(input.url, { mode: 'static', signal });
      } catch (error) {
        failure = error;
        staticError = error instanceof AppError ? `${error.category}: ${error.detail ?? error.message}` : 'static fetch failed';
      }
    }
    let rendered: FetchResult | null = null;
    if (input.fetch_mode !== 'static') {
      try {
        rendered = await this.loader.fetcher.fetch(input.url, { mode: 'dynamic', signal });
      } catch (error) {
        // No browser (or it failed): the analysis goes on with the static page when there is one.
        if (!staticPage) throw finalJobError(error, 'Analysis');
      }
    }
    if (!staticPage && !rendered) throw finalJobError(failure, 'Analysis');
    return { staticPage, rendered, staticError };
  }

  /** Depth 1: the type and structure of a few pages the main follow pattern leads to (no model calls). */
  private async analyzeLinked(heuristics: AnalysisHeuristics, input: AnalyzeJobInput, signal: AbortSignal) {
    const pattern = heuristics.followPatterns.find((p) => p.kind === 'detail') ?? heuristics.followPatterns[0];
    const urls = (pattern?.sample_urls ?? []).slice(0, MAX_LINKED_PAGES);
    const pages = [];
    for (const url of urls) {
      try {
        const page = await this.loader.load(url, input.fetch_mode === 'dynamic' ? 'dynamic' : 'static', { signal });
        const linked = analyzePage({
          html: page.fetch.html,
          url: page.fetch.url,
          links: page.content.links,
          metadata: {
            title: page.content.metadata.title,
            jsonLd: page.content.metadata.jsonLd,
            openGraph: page.content.metadata.openGraph,
          },
        });
        pages.push({
          url: page.fetch.url,
          page_type: linked.pageType,
          pattern: pattern?.pattern ?? null,
          detected_elements: linked.detectedElements.slice(0, 5).map((e) => ({ name: e.name, type: e.type, count: e.count })),
        });
      } catch (error) {
        pages.push({
          url,
          page_type: null,
          pattern: pattern?.pattern ?? null,
          error_category: error instanceof AppError ? error.category : 'internal',
        });
      }
    }
    return pages;
  }
}

/**
 * Without a rendered page to compare with (static-only request, or no browser), the JavaScript
 * detector of the fetcher decides between static and dynamic instead of answering "auto".
 */
function recommendedMode(h: AnalysisHeuristics, staticPage: FetchResult | null, rendered: FetchResult | null): string {
  if (rendered || !staticPage || h.recommendedFetchMode !== 'auto') return h.recommendedFetchMode;
  return detectNeedsJs(staticPage.html).needsJs ? 'dynamic' : 'static';
}

function usableSchema(text: unknown): text is string {
  if (typeof text !== 'string' || !text.trim()) return false;
  try {
    parseSchema(text, 'suggested_schema');
    return true;
  } catch {
    return false;
  }
}

function hintsFor(h: AnalysisHeuristics): string {
  const elements = h.detectedElements.slice(0, 3).map((e) => `${e.name} ×${e.count} (${e.fields.map((f) => f.name).join(', ')})`);
  return [
    `Structure seen on the page: ${elements.join('; ') || 'no repeated elements'}.`,
    `Heuristic page type: ${h.pageType}.`,
    `A heuristic schema: ${h.suggestedSchema.replace(/\n/g, ' | ')}`,
  ].join(' ');
}

function sum<T>(items: T[], pick: (item: T) => number): number {
  return items.reduce((acc, item) => acc + pick(item), 0);
}
