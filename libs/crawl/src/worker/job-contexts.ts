import { ModelPlanCache, type ModelPagePlan } from '@app/extraction';
import type { RobotsCache } from '@app/fetch';
import type { PageFormatsPlan } from '@app/pages';
import type { JobRecord } from '@app/jobs';
import { crawlConsumer } from '@app/learned';
import { extractionSchema, parseCrawlInput, type CrawlJobInput } from '../crawl-input';
import { CrawlScope } from '../crawl-scope';
import { canonicalize } from '../url-canon';
import type { FetchContext } from './page-fetch';

/** What a page worker knows of a job: its record, its parsed input and what is built from it once. */
export interface JobContext extends FetchContext {
  /** Its model plan, resolved once per while for all its pages in this process. */
  plans: ModelPlanCache;
  /** The crawl's sealed secrets as opened once (every task of a crawl carries the same sealed text). */
  secrets?: { sealed: string; opened: Record<string, string> };
  /** Its robots.txt reader for the next pages of a `paginate` list (page-pagination.ts), made at its first such page. */
  robots?: RobotsCache;
  at: number;
}

/** A crawl's pages as formats; with the `json` format, its model plan (docs/scrape.md "The json format"). */
export type CrawlFormatsPlan = PageFormatsPlan & { json?: ModelPagePlan };

/**
 * A crawl's pages by the model chain (or its learned programs, as the crawl's own consumer), or its formats, the
 * `json` format by that same model plan.
 */
export function crawlPlan(jobId: string, input: CrawlJobInput): ModelPagePlan | CrawlFormatsPlan {
  const model = (): ModelPagePlan => ({
    kind: 'model',
    schema: extractionSchema(input),
    llmConfig: input.llm_config,
    mode: input.extraction_mode,
    consumer: crawlConsumer(jobId),
    settings: { provenance: input.options.provenance, grounding: input.options.grounding },
    ...(input.prompt ? { instructions: input.prompt } : {}),
  });
  if (!input.page_formats) return model();
  return input.page_formats.formats.includes('json') ? { ...input.page_formats, json: model() } : input.page_formats;
}

/** Job records are re-read this often by a page worker (cancellation also comes by bus). */
export const JOB_CACHE_MS = 500;
/** Jobs whose context a process keeps (the oldest goes first). */
const JOBS_KEPT = 1000;

/**
 * The page workers' view of their jobs: the job record re-read every JOB_CACHE_MS (its status), by one
 * read however many pages ask at once. A job's input never changes while the job exists (only deleting
 * the job clears it), so it is parsed and validated once per job and process, and its scope built once,
 * not at every re-read. Null for a job that is gone, deleted, or whose input is malformed.
 */
export class JobContexts {
  private readonly cache = new Map<string, JobContext>();
  private readonly reading = new Map<string, Promise<JobContext | null>>();

  constructor(private readonly findJob: (jobId: string) => Promise<JobRecord | null>) {}

  get(jobId: string): Promise<JobContext | null> {
    const cached = this.cache.get(jobId);
    if (cached && Date.now() - cached.at < JOB_CACHE_MS) return Promise.resolve(cached);
    let reading = this.reading.get(jobId);
    if (!reading) {
      reading = this.read(jobId, cached).finally(() => this.reading.delete(jobId));
      this.reading.set(jobId, reading);
    }
    return reading;
  }

  private async read(jobId: string, cached: JobContext | undefined): Promise<JobContext | null> {
    const job = await this.findJob(jobId);
    if (!job || job.deleted_at) return null;
    let parsed: Pick<JobContext, 'input' | 'scope' | 'plan' | 'plans'> | undefined = cached;
    if (!parsed) {
      let input: CrawlJobInput;
      try {
        input = parseCrawlInput(job.input);
      } catch {
        return null;
      }
      const seed = canonicalize(input.url);
      if (!seed) return null;
      parsed = { input, scope: new CrawlScope(seed, input.options), plan: crawlPlan(job._id, input), plans: new ModelPlanCache() };
    }
    const fresh: JobContext = {
      job,
      input: parsed.input,
      scope: parsed.scope,
      plan: parsed.plan,
      plans: parsed.plans,
      secrets: cached?.secrets,
      robots: cached?.robots,
      at: Date.now(),
    };
    this.cache.set(jobId, fresh);
    if (this.cache.size > JOBS_KEPT) this.cache.delete(this.cache.keys().next().value as string);
    return fresh;
  }
}
