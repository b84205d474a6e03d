/**
 * One crawl of bench:learned: `POST /api/v1/crawl` of one part of a fixture site (its index page) by the built
 * app, the model server as a perfect model, and the numbers of the run: model calls (full, and partial weighted by
 * their tokens against the page's full call), field agreement of `GET /jobs/{id}/results` with the ground truth,
 * pages by method from the crawl map, and for `auto` runs the learned templates as `GET /learned-programs` shows
 * them (programs, retired ones and why, per-field disagreements) plus, from the store, whether any page was
 * extracted by a program that was never accepted.
 */
import { type ExtractionProgram, type LearnedTemplateRecord, type LearnedTemplateView } from '../../../libs/learned/src';
import type { JsonSchemaObject } from '../../../libs/schema/src';
import type { Collection } from '../../../libs/storage/src';
import { countTokens, pageUrlOf, type ModelServer, type RecordedRequest } from '../../fixtures/model-server';
import { call, startCrawl, waitJob, type Embedded } from '../crawl/gleaner';
import { agreement, fieldCount, round, type BenchPage, type Run } from './corpus';
import { driftCheck } from './drift-check';
import type { BenchSite } from './site';

const MODEL = 'gpt-4o-mini';

export interface Bench {
  site: BenchSite;
  models: ModelServer;
  app: Embedded;
  templates: Collection<LearnedTemplateRecord>;
  concurrency: number;
}

export interface CrawlSpec {
  corpus: string;
  site: string;
  host: string;
  /** The index page the crawl starts from (`/`, `/dev/`, `/heldout/`). */
  seed: string;
  part?: string;
  shape?: string;
  mode: 'model' | 'auto';
  schema: JsonSchemaObject;
  pages: BenchPage[];
  /** The host serves drifted pages after this many distinct pages (over every crawl of the host). */
  driftAfter?: number;
  /** Tokens of each page's full call (from the `model` run of the same part and shape), to weigh partial calls. */
  fullCallTokens?: Map<string, number>;
  /** Which repetition of the pair of crawls (BENCH_LEARNED_REPEAT). */
  repetition?: number;
}

interface PerPage {
  path: string;
  order: number;
  drifted: boolean;
  method: string;
  programId?: string;
  modelFields?: string[];
  wrong: string[];
}

/** A model call's size as the model server counts it: prompt (system, user text, schema) and answer. */
export function callTokens(request: RecordedRequest, answer: unknown): number {
  const prompt = `${request.system ?? ''}\n${request.userText}${request.schema ? JSON.stringify(request.schema) : ''}`;
  return countTokens(prompt) + countTokens(JSON.stringify(answer ?? null));
}

/** A partial call asks for some fields only, or sends an excerpt of the page (docs/learned-extraction.md). */
export function isPartial(request: RecordedRequest, schema: JsonSchemaObject): boolean {
  const asked = Object.keys((request.schema?.properties as Record<string, unknown> | undefined) ?? {});
  return /<page excerpt="true"/.test(request.userText) || (asked.length > 0 && asked.length < Object.keys(schema.properties ?? {}).length);
}

/** What the perfect model answers: the page's ground truth, restricted to the fields asked. */
export function oracleAnswer(site: BenchSite, request: RecordedRequest): Record<string, unknown> | undefined {
  const url = pageUrlOf(request);
  const truth = url ? site.page(url)?.truth : undefined;
  if (!truth) return undefined;
  const asked = request.schema?.properties as Record<string, unknown> | undefined;
  return asked ? Object.fromEntries(Object.keys(asked).map((k) => [k, truth[k] ?? null])) : truth;
}

export async function crawlRun(bench: Bench, run: CrawlSpec): Promise<Run> {
  const { site, models, app } = bench;
  models.reset();
  const started = Date.now();
  const jobId = await startCrawl(app.url, {
    url: site.url(run.host, run.seed),
    schema: run.schema,
    extraction_mode: run.mode,
    // 16,000 tokens: the longest article body (53,000 characters) fits in one answer.
    llm_config: { provider: 'openai', model: MODEL, api_key: 'sk-bench', base_url: models.openaiBaseUrl, max_tokens: 16_000 },
    options: {
      follow_selector: 'a.bench-page',
      max_depth: 1,
      max_pages: run.pages.length + 1,
      extract_from_seed: false,
      concurrency: bench.concurrency,
      fetch_mode: 'static',
    },
  });
  const job = await waitJob(app.url, jobId, { everyMs: 500, timeoutMs: 30 * 60_000 });
  const wallS = (Date.now() - started) / 1000;
  if (job.status !== 'completed')
    throw new Error(`${run.corpus}/${run.host}/${run.mode}: crawl ${jobId} ended ${job.status}: ${job.error_message}`);
  const items = (await call(app.url, 'GET', `/api/v1/jobs/${jobId}/results`)).body as Array<{
    url: string;
    status: string;
    data: unknown;
    metadata?: { method?: string; program_id?: string; template_id?: string; model_fields?: string[] };
  }>;
  const map = (await call(app.url, 'GET', `/api/v1/jobs/${jobId}/crawl-map`)).body as {
    entries: Array<{ url: string; method: string | null; extract_duration_ms: number | null }>;
    extracted_by_method?: Record<string, number>;
  };
  const jobView = (await call(app.url, 'GET', `/api/v1/jobs/${jobId}`)).body as Record<string, unknown>;

  // Model calls from the model server's log: full ones count 1, partial ones their tokens against the page's full call.
  const requests = models.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
  const meanFull = mean([...(run.fullCallTokens?.values() ?? [])]);
  let full = 0;
  let partial = 0;
  let weightedPartial = 0;
  const tokens = { full: 0, partial: 0 };
  const tokensByPath: Record<string, number> = {};
  const callsByUrl = new Map<string, number>();
  for (const r of requests) {
    const url = pageUrlOf(r) ?? '?';
    callsByUrl.set(url, (callsByUrl.get(url) ?? 0) + 1);
    const size = callTokens(r, oracleAnswer(site, r));
    const path = url === '?' ? '' : new URL(url).pathname;
    if (!isPartial(r, run.schema)) {
      full++;
      tokens.full += size;
      tokensByPath[path] = size;
      continue;
    }
    partial++;
    tokens.partial += size;
    weightedPartial += size / (run.fullCallTokens?.get(path) ?? meanFull ?? size);
  }

  const fields = fieldCount(run.schema);
  const itemByPath = new Map(items.map((i) => [new URL(i.url).pathname, i]));
  const entryByPath = new Map(map.entries.map((e) => [new URL(e.url).pathname, e]));
  const served = new Map(site.served(run.host).map((s) => [s.path, s]));
  let agree = 0;
  let missing = 0;
  let extractMs = 0;
  const wrong: string[] = [];
  const wrongByField: Record<string, number> = {};
  const byMethod: Record<string, number> = {};
  const perPage: PerPage[] = [];
  for (const page of run.pages) {
    const item = itemByPath.get(page.path);
    const entry = entryByPath.get(page.path);
    if (!item || item.status !== 'completed' || !entry) {
      missing++;
      if (wrong.length < 10) wrong.push(`${page.path}: no completed result`);
      continue;
    }
    const score = agreement(run.schema, item.data, page.truth);
    agree += score.agree;
    for (const f of score.wrong) wrongByField[f] = (wrongByField[f] ?? 0) + 1;
    const method = entry.method ?? 'none';
    byMethod[method] = (byMethod[method] ?? 0) + 1;
    extractMs += entry.extract_duration_ms ?? 0;
    // Held-out pages' values are not printed: only counts leave a held-out run (learned/split.ts).
    if (score.wrong.length > 0 && wrong.length < 10 && run.part !== 'heldout')
      wrong.push(
        `${page.path} (${method}) ${score.wrong
          .map(
            (f) =>
              `${f}: got ${JSON.stringify((item.data as Record<string, unknown>)?.[f])?.slice(0, 60)}, truth ${JSON.stringify(page.truth[f])?.slice(0, 60)}`,
          )
          .join('; ')}`,
      );
    const servedAs = served.get(page.path);
    perPage.push({
      path: page.path,
      order: servedAs?.order ?? 0,
      drifted: servedAs?.drifted ?? false,
      method,
      programId: item.metadata?.program_id,
      modelFields: item.metadata?.model_fields,
      wrong: score.wrong,
    });
  }
  const weighted = full + weightedPartial;
  const out: Run = {
    corpus: run.corpus,
    site: run.site,
    ...(run.shape ? { shape: run.shape } : {}),
    ...(run.part ? { part: run.part } : {}),
    ...(run.repetition ? { repetition: run.repetition } : {}),
    mode: run.mode,
    pages: run.pages.length,
    model_calls_per_page: round(weighted / run.pages.length),
    agreement: round(agree / (run.pages.length * fields)),
    host: run.host,
    job_id: jobId,
    model_calls: { full, partial, partial_weighted: round(weightedPartial, 3), weighted: round(weighted, 3) },
    model_tokens: tokens,
    pages_with_more_than_one_call: [...callsByUrl.values()].filter((n) => n > 1).length,
    pages_by_method: byMethod,
    crawl_map_extracted_by_method: map.extracted_by_method ?? null,
    job_pages_by_method: jobView.pages_by_method ?? null,
    job_model_calls: jobView.model_calls ?? null,
    job_model_calls_by_kind: jobView.model_calls_by_kind ?? null,
    job_tokens_by_call_kind: jobView.tokens_by_call_kind ?? null,
    wrong_fields: wrongByField,
    pages_without_result: missing,
    crawl_seconds: round(wallS, 1),
    extract_ms_per_page: round(extractMs / run.pages.length, 1),
  };
  if (run.mode === 'model') out.tokens_by_path = tokensByPath;
  if (run.mode === 'auto') Object.assign(out, await learnedSide(bench, run, perPage));
  if (wrong.length > 0) out.disagreements_sample = wrong;
  return out;
}

function mean(xs: number[]): number | undefined {
  return xs.length === 0 ? undefined : xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** The run's templates through `GET /learned-programs?host=`, and from the store whether every selector page's program was accepted. */
async function learnedSide(bench: Bench, run: CrawlSpec, perPage: PerPage[]): Promise<Record<string, unknown>> {
  const hostPort = new URL(bench.site.url(run.host)).host;
  const views = (await call(bench.app.url, 'GET', `/api/v1/learned-programs?host=${encodeURIComponent(hostPort)}&limit=100`)).body
    .learned_programs as LearnedTemplateView[];
  const docs = (await bench.templates.find({ kind: 'template' })).filter((d) => d.host === hostPort);
  const accepted = new Set<string>();
  for (const d of docs) {
    if (d.state.phase === 'active' && d.state.program) accepted.add(d.state.program.id);
    for (const p of d.state.programs ?? []) accepted.add(p.id);
    for (const r of d.state.retired) accepted.add(r.program.id);
    for (const e of d.state.events) if (e.kind === 'accepted' && e.programId) accepted.add(e.programId);
  }
  const bySelectors = perPage.filter((p) => p.method !== 'model');
  const out: Record<string, unknown> = {
    templates: views.length,
    templates_active: views.filter((v) => v.phase === 'active').length,
    programs_retired: views.flatMap((v) => v.retired),
    pages_by_unverified_program: bySelectors.filter((p) => !p.programId || !accepted.has(p.programId)).length,
    wrong_fields_on_selector_pages: bySelectors.reduce((n, p) => n + p.wrong.length, 0),
    disagreements: views.map((v) => ({ template_id: v.template_id, by_field: v.disagreements.by_field, checks: v.checks })),
    programs: views
      .filter((v) => v.program)
      .map((v) =>
        v.program!.rules.map(
          (r) =>
            `${r.field}: ${r.selector} [${r.source.kind}${'label' in r.source ? ` "${r.source.label}"` : ''}${r.steps.map((s) => ` ${s.op}`).join('')}]`,
        ),
      ),
    last_learning_failures: views.flatMap((v) => v.last_failures.map((f) => `${f.field}: ${f.reason}`)).slice(0, 10),
  };
  if (run.part !== 'heldout') out.recent_disagreements = views.flatMap((v) => v.disagreements.recent);
  if (run.driftAfter !== undefined) Object.assign(out, driftSide(bench, run, perPage, docs));
  return out;
}

function driftSide(bench: Bench, run: CrawlSpec, perPage: PerPage[], docs: LearnedTemplateRecord[]) {
  const programs = new Map<string, ExtractionProgram>();
  for (const d of docs) {
    for (const p of d.state.programs ?? []) programs.set(p.id, p);
    for (const r of d.state.retired) programs.set(r.program.id, r.program);
    if (d.state.program) programs.set(d.state.program.id, d.state.program);
  }
  const byPath = new Map(run.pages.map((p) => [p.path, p]));
  const pages = perPage.map((p) => ({ ...p, url: bench.site.url(run.host, p.path), html: byPath.get(p.path)!.html }));
  return driftCheck(run.schema, pages, run.driftAfter!, programs, docs[0]?.state.program ?? null);
}
