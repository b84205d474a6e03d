import { Injectable } from '@nestjs/common';
import { analyzePage, type AnalysisHeuristics } from '@app/analysis';
import { AppError, Usage } from '@app/core';
import { AuthSessions } from '@app/auth-profiles';
import { detectNeedsJs, openFetchControl, type FetchControl, type FetchResult } from '@app/fetch';
import { finalJobError, type JobContext, type JobHandler } from '@app/jobs';
import { ResultsService } from '@app/results';
import { parseSchema, type JsonSchemaObject } from '@app/schema';
import { ExtractionFailure, ExtractionService, type ExtractOutput } from './extraction.service';
import { captureRecorder } from './page/capture';
import { llmConfigFor, type RunSummary } from '@app/llm';
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

/** Why part of an analysis comes from the heuristics only (the `warnings` of POST /analyze). */
export interface AnalysisWarning {
  /** model_failed: every attempt failed or replied out of shape; model_skipped: not asked after that. */
  code: 'model_failed' | 'model_skipped';
  stage: 'suggestion' | 'sample_data';
  error_category: string;
  message: string;
}

/**
 * Runs an `analyze` job: fetches the page statically and (unless static-only) rendered, reads its
 * structure with the heuristics (repeated elements, follow patterns, fetch mode), asks the model
 * for a page type, summary and schema (the heuristic schema is the fallback when the model's does
 * not parse), and extracts `sample_data` with that schema. Depth 1 looks at a few linked pages.
 * When the model fails, the heuristic analysis is the result, with `warnings` saying what failed.
 */
@Injectable()
export class AnalyzeJobHandler implements JobHandler<AnalyzeJobInput> {
  readonly type = 'analyze';
  readonly parseInput = parseAnalyzeInput;

  constructor(
    private readonly loader: PageLoaderService,
    private readonly extraction: ExtractionService,
    private readonly results: ResultsService,
    private readonly sessions: AuthSessions,
  ) {}

  async run({ job, input, signal, jobs, secrets }: JobContext<AnalyzeJobInput>): Promise<void> {
    // Recorded by an earlier delivery that did not get to finish the job: only the finish is left (see ExtractJobHandler).
    if (job.page_count > 0) return;
    const llmConfig = llmConfigFor(input.llm_config, secrets);
    const control = analysisControl(input, secrets, job);
    const { staticPage, rendered, staticError } = await this.fetchBoth(input, signal, control);
    const primary = rendered ?? staticPage!;
    const content = await this.loader.convert(primary, { mode: 'full' });
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
    const linkedPages = input.depth >= 1 ? await this.analyzeLinked(heuristics, input, signal, control) : [];

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
    // Every model run's summary (a failed one's too: its attempts were billed), and the last model that answered.
    const spent: RunSummary[] = [];
    let last: ExtractOutput | undefined;
    const warnings: AnalysisWarning[] = [];
    // The model only refines what the heuristics already found: when it fails (every attempt of the
    // chain, or replies that never fit), the heuristic analysis is the answer, with a warning.
    const refine = async <T>(stage: AnalysisWarning['stage'], run: () => Promise<ExtractOutput>): Promise<T | null> => {
      try {
        const out = await run();
        spent.push(out);
        last = out;
        return out.data as T;
      } catch (error) {
        if (!(error instanceof ExtractionFailure) || signal.aborted) throw error;
        if (error.summary) spent.push(error.summary);
        warnings.push({
          code: 'model_failed',
          stage,
          error_category: error.category ?? 'internal',
          message: `${stage === 'suggestion' ? 'The page type, summary and schema' : 'The sample data'} come from the heuristics only: ${error.detail ?? error.message}`,
        });
        return null;
      }
    };
    try {
      const suggested = await refine<{ page_type: string; site_summary: string; suggested_schema: string }>('suggestion', () =>
        this.extraction.extract({
          userId: job.user_id,
          url: primary.url,
          content: content.markdown,
          schema: SUGGESTION_SCHEMA,
          llmConfig,
          signal,
          onCall,
          instructions: hintsFor(heuristics),
        }),
      );
      const schemaText = suggested && usableSchema(suggested.suggested_schema) ? suggested.suggested_schema : heuristics.suggestedSchema;
      // No second round with a chain that just failed: sample_data stays null then.
      const sampleData = suggested
        ? await refine<unknown>('sample_data', () =>
            this.extraction.extract({
              userId: job.user_id,
              url: primary.url,
              content: content.markdown,
              schema: parseSchema(schemaText, 'suggested_schema').jsonSchema,
              llmConfig,
              signal,
              onCall,
            }),
          )
        : null;
      if (!suggested) {
        warnings.push({
          code: 'model_skipped',
          stage: 'sample_data',
          error_category: warnings[0]?.error_category ?? 'internal',
          message: 'No sample data: the model failed on the suggestion already.',
        });
      }
      const result = {
        page_type: suggested?.page_type || heuristics.pageType,
        site_summary: suggested?.site_summary || heuristics.siteSummary,
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
        sample_data: sampleData ?? null,
        ...(input.depth >= 1 ? { linked_pages: linkedPages } : {}),
        warnings,
      };
      await this.results.record(job, {
        url: primary.url,
        status: 'completed',
        data: result,
        depth: 0,
        parent_url: null,
        ...Usage.toRecordFields(used(spent)),
        llm_model: last?.target.model ?? null,
        llm_provider: last?.target.provider ?? null,
      });
      await jobs.recordUsage(job._id, { page_count: 1, ...Usage.toCounters(used(spent)) }, { attempts: spent.flatMap((s) => s.attempts) });
    } catch (error) {
      if (error instanceof ExtractionFailure && error.summary) spent.push(error.summary);
      if (spent.length > 0) {
        await jobs.recordUsage(
          job._id,
          { failed_count: 1, ...Usage.toCounters(used(spent)) },
          { attempts: spent.flatMap((s) => s.attempts) },
        );
      }
      throw finalJobError(error, 'Analysis');
    }
  }

  private async fetchBoth(
    input: AnalyzeJobInput,
    signal: AbortSignal,
    control: FetchControl,
  ): Promise<{ staticPage: FetchResult | null; rendered: FetchResult | null; staticError?: string }> {
    // Both fetches with the job's fetch control; with an auth profile they carry its session, logging in (again) as
    // a page's fetch does (docs/auth-profiles.md).
    const fetch = (mode: 'static' | 'dynamic') => this.loader.fetchControlled(input.url, control, { mode, signal });
    let staticPage: FetchResult | null = null;
    let staticError: string | undefined;
    let failure: unknown;
    if (input.fetch_mode !== 'dynamic') {
      try {
        staticPage = await fetch('static');
      } catch (error) {
        failure = error;
        staticError = error instanceof AppError ? `${error.category}: ${error.detail ?? error.message}` : 'static fetch failed';
      }
    }
    let rendered: FetchResult | null = null;
    if (input.fetch_mode !== 'static') {
      try {
        rendered = await fetch('dynamic');
      } catch (error) {
        // No browser (or it failed): the analysis goes on with the static page when there is one.
        // Without either, the static failure (when there was one) is the reason worth reporting.
        if (!staticPage) throw finalJobError(failure ?? error, 'Analysis');
      }
    }
    if (!staticPage && !rendered) throw finalJobError(failure, 'Analysis');
    return { staticPage, rendered, staticError };
  }

  /**
   * Depth 1: the type and structure of a few pages the main follow pattern leads to (no model calls). With an
   * auth profile they are chosen among the links that are not its logout links (the crawl's rule, LogoutLinks:
   * docs/auth-profiles.md "Logout links"), so a logged-in analysis does not log itself out.
   */
  private async analyzeLinked(heuristics: AnalysisHeuristics, input: AnalyzeJobInput, signal: AbortSignal, control: FetchControl) {
    const pattern = heuristics.followPatterns.find((p) => p.kind === 'detail') ?? heuristics.followPatterns[0];
    const logout = control.authProfile ? await this.sessions.logoutLinks(control.authProfile) : null;
    const urls = (pattern?.sample_urls ?? []).filter((url) => !logout?.why(url)).slice(0, MAX_LINKED_PAGES);
    const pages = [];
    for (const url of urls) {
      try {
        const page = await this.loader.load(url, input.fetch_mode === 'dynamic' ? 'dynamic' : 'static', {
          signal,
          control,
        });
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
 * The analysis's fetch control, opened as a page's is: its pool and auth profile, and the saved site's headers and
 * cookies (sealed with the job, docs/scrape.md "Fetch control in crawls and batches") scoped to the analysed page's
 * host: a linked page or a redirect on another host gets none.
 */
function analysisControl(input: AnalyzeJobInput, secrets: Record<string, string>, job: { _id: string; user_id: string }): FetchControl {
  return openFetchControl(input.fetch_control, secrets, { host: new URL(input.url).host, owner: job.user_id, job: job._id });
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

/** What the analysis's model runs used, together. */
function used(spent: RunSummary[]): Usage {
  return Usage.sum(spent.map((run) => Usage.of(run)));
}
