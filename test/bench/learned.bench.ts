/**
 * npm run bench:learned — learned extraction through the product path: the ground-truth corpus of
 * $GLEANER_CORPUS_DIR (default and layout: corpus-dir.ts) served by a local fixture site
 * (learned/site.ts), crawled by Gleaner (the built embedded app, `npm run build` first) through
 * `POST /api/v1/crawl`, with the model server (test/fixtures/model-server) acting as a perfect model:
 * it answers each page, named by the prompt's `Page URL:`, with that page's ground truth, through the
 * official OpenAI SDK path. The numbers measure the learning alone, in crawl order and with pages in
 * flight concurrently, as a real crawl has them.
 *
 * Runs (each site on its own host, so every `auto` run starts without learned templates unless said):
 * - SWDE book pages, 2 sites × 250 (title, author list, ISBN-13, publisher, publication date):
 *   `model` mode (the baseline), `auto` mode, then `auto` again on the same host (`swde-book-reuse`:
 *   the stored programs are re-verified, then reused);
 * - drift: the same sites on a second host whose template changes once half the pages were served
 *   (every class renamed, lists and the heading block reordered);
 * - the 181 articles (no shared template) under one host, `model` and `auto`.
 *
 * Per run: model calls per page (from the model server's request log), field-level agreement of the
 * results (`GET /jobs/{id}/results`) with the ground truth, pages by method (the crawl map), and from
 * the store the templates, programs accepted and retired, and the program each page was extracted
 * with (the result's metadata, read from the store while the results view does not show it).
 * Writes bench-results/learned.json with `checks` against the issue's targets; exits 1 when a target
 * is missed, when the corpus is missing, or when dist/ is.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_LEARNED_CONFIG,
  LEARNED_TEMPLATES,
  disagreeingFields,
  parsePage,
  planFields,
  runProgram,
  type ExtractionProgram,
  type LearnedTemplateRecord,
} from '../../libs/learned/src';
import type { JsonSchemaObject } from '../../libs/schema/src';
import { SqliteDocumentStore, type Collection, type Doc } from '../../libs/storage/src';
import { pageUrlOf, startModelServer, type Json, type ModelServer } from '../fixtures/model-server';
import { loadArticles, loadSwde } from './content-corpus';
import { corpusDir } from './corpus-dir';
import { API_MAIN, ROOT, baseEnv, call, startCrawl, startEmbeddedApp, waitJob, type Embedded } from './crawl/gleaner';
import { killAll } from './crawl/procs';
import { ARTICLE_SCHEMA, BOOK_SCHEMA, agreement, bookTruth, drift, fieldCount, round, type BenchPage, type Run } from './learned/corpus';
import { startBenchSite, type BenchSite, type SiteSpec } from './learned/site';

const TARGETS = {
  auto_calls_per_page: 0.1,
  auto_agreement: 0.98,
  drift_agreement: 0.98,
  /** The program is retired before this many drifted pages went through it (the spot-check interval). */
  drift_retired_within_pages: DEFAULT_LEARNED_CONFIG.spotCheckEvery,
};
/** A realistic crawl: a few pages in flight at once, so a template's first pages are extracted while it is still learning. */
const CONCURRENCY = Number(process.env.BENCH_LEARNED_CONCURRENCY ?? 6);
const MODEL = 'gpt-4o-mini';

interface MapEntry {
  url: string;
  status: string;
  method: string | null;
  result_id: string | null;
  extract_duration_ms: number | null;
}

interface ResultDoc extends Doc {
  id: string;
  job_id: string;
  url: string;
  metadata?: { method?: string; program_id?: string; template_id?: string };
}

interface Bench {
  site: BenchSite;
  models: ModelServer;
  app: Embedded;
  results: Collection<ResultDoc>;
  templates: Collection<LearnedTemplateRecord>;
}

async function crawlRun(
  bench: Bench,
  run: {
    corpus: string;
    site: string;
    host: string;
    mode: 'model' | 'auto';
    schema: JsonSchemaObject;
    pages: BenchPage[];
    driftAfter?: number;
  },
): Promise<Run> {
  const { site, models, app } = bench;
  models.reset();
  const started = Date.now();
  const jobId = await startCrawl(app.url, {
    url: site.url(run.host),
    schema: run.schema,
    extraction_mode: run.mode,
    // 16,000 tokens: the longest article body (53,000 characters) fits in one answer.
    llm_config: { provider: 'openai', model: MODEL, api_key: 'sk-bench', base_url: models.openaiBaseUrl, max_tokens: 16_000 },
    options: {
      follow_selector: 'a.bench-page',
      max_depth: 1,
      max_pages: run.pages.length + 1,
      extract_from_seed: false,
      concurrency: CONCURRENCY,
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
    metadata?: ResultDoc['metadata'];
  }>;
  const map = (await call(app.url, 'GET', `/api/v1/jobs/${jobId}/crawl-map`)).body as {
    entries: MapEntry[];
    extracted_by_method?: { model: number; selectors: number };
  };
  // The program each page was extracted with: the result's metadata (from the results view when it shows it, else the store).
  const stored = new Map((await bench.results.find({ job_id: jobId })).map((r) => [r.url, r.metadata ?? {}]));
  const metaOf = (item: { url: string; metadata?: ResultDoc['metadata'] }) => item.metadata ?? stored.get(item.url) ?? {};

  const calls = models.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/chat/completions'));
  const callsByUrl = new Map<string, number>();
  for (const r of calls) {
    const url = pageUrlOf(r) ?? '?';
    callsByUrl.set(url, (callsByUrl.get(url) ?? 0) + 1);
  }

  const fields = fieldCount(run.schema);
  const itemByPath = new Map(items.map((i) => [new URL(i.url).pathname, i]));
  const entryByPath = new Map(map.entries.map((e) => [new URL(e.url).pathname, e]));
  const served = new Map(site.served(run.host).map((s) => [s.path, s]));
  let agree = 0;
  const wrong: string[] = [];
  const byMethod: Record<string, number> = {};
  let missing = 0;
  let extractMs = 0;
  const perPage: Array<{ path: string; order: number; drifted: boolean; method: string; programId?: string; wrong: string[] }> = [];
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
    const method = entry.method ?? 'none';
    byMethod[method] = (byMethod[method] ?? 0) + 1;
    extractMs += entry.extract_duration_ms ?? 0;
    if (score.wrong.length > 0 && wrong.length < 10)
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
      programId: metaOf(item).program_id,
      wrong: score.wrong,
    });
  }
  const modelCalls = calls.length;
  const out: Run = {
    corpus: run.corpus,
    site: run.site,
    mode: run.mode,
    pages: run.pages.length,
    model_calls_per_page: round(modelCalls / run.pages.length),
    agreement: round(agree / (run.pages.length * fields)),
    host: run.host,
    job_id: jobId,
    model_calls: modelCalls,
    pages_with_more_than_one_call: [...callsByUrl.values()].filter((n) => n > 1).length,
    pages_by_method: byMethod,
    crawl_map_extracted_by_method: map.extracted_by_method ?? null,
    pages_without_result: missing,
    crawl_seconds: round(wallS, 1),
    extract_ms_per_page: round(extractMs / run.pages.length, 1),
  };
  if (run.mode === 'auto') Object.assign(out, await learnedSide(bench, run, perPage));
  if (wrong.length > 0) out.disagreements_sample = wrong;
  return out;
}

/** The learned templates of the run's host (from the store) and what they say about the pages. */
async function learnedSide(
  bench: Bench,
  run: { host: string; schema: JsonSchemaObject; pages: BenchPage[]; driftAfter?: number },
  perPage: Array<{ path: string; order: number; drifted: boolean; method: string; programId?: string; wrong: string[] }>,
): Promise<Record<string, unknown>> {
  const { host, driftAfter } = run;
  const docs = (await bench.templates.find({ kind: 'template' })).filter((d) => d.host.split(':')[0] === host);
  // Accepted programs: the active one, every retired one (only an active program is retired), and the latest `accepted` events.
  const accepted = new Set<string>();
  for (const d of docs) {
    if (d.state.phase === 'active' && d.state.program) accepted.add(d.state.program.id);
    for (const r of d.state.retired) accepted.add(r.program.id);
    for (const e of d.state.events) if (e.kind === 'accepted' && e.programId) accepted.add(e.programId);
  }
  const bySelectors = perPage.filter((p) => p.method === 'selectors');
  const unverified = bySelectors.filter((p) => !p.programId || !accepted.has(p.programId)).length;
  const retired = docs.flatMap((d) =>
    d.state.retired.map((r) => ({ program_id: r.program.id, reason: r.reason, pages_extracted: r.pagesExtracted })),
  );
  const out: Record<string, unknown> = {
    templates: docs.length,
    templates_active: docs.filter((d) => d.state.phase === 'active').length,
    programs_accepted: accepted.size,
    programs_retired: retired,
    pages_by_unverified_program: unverified,
    wrong_fields_on_selector_pages: bySelectors.reduce((n, p) => n + p.wrong.length, 0),
    programs: docs
      .filter((d) => d.state.program)
      .map((d) =>
        d.state.program!.rules.map(
          (r) =>
            `${r.field}: ${r.selector} [${r.source.kind}${'label' in r.source ? ` "${r.source.label}"` : ''}${r.steps.map((s) => ` ${s.op}`).join('')}]`,
        ),
      ),
    last_learning_failures: docs.flatMap((d) => d.state.last_failures.map((f) => `${f.field}: ${f.reason}`)).slice(0, 10),
  };
  if (driftAfter !== undefined) {
    const drifted = perPage.filter((p) => p.drifted).sort((a, b) => a.order - b.order);
    const retiredIds = new Set(retired.map((r) => r.program_id));
    // Drifted pages that went through a program accepted before the change (extracted by it, or checked against it).
    const oldPrograms = new Set(perPage.filter((p) => !p.drifted && p.programId && accepted.has(p.programId)).map((p) => p.programId!));
    const throughOld = drifted.filter((p) => p.programId && oldPrograms.has(p.programId));
    const retiredOld = [...oldPrograms].filter((id) => retiredIds.has(id));
    const lastOrder = throughOld.length > 0 ? Math.max(...throughOld.map((p) => p.order)) : null;
    // Whether the change touched what the old program reads: its output on each drifted page it saw, against its
    // output on the same page before the change. Untouched, the program rightly stays (no retirement is needed).
    const programs = new Map<string, ExtractionProgram>();
    for (const d of docs) {
      if (d.state.program) programs.set(d.state.program.id, d.state.program);
      for (const r of d.state.retired) programs.set(r.program.id, r.program);
    }
    const fields = planFields(run.schema).fields;
    const byPath = new Map(run.pages.map((p) => [p.path, p]));
    const changed = throughOld.filter((p) => {
      const program = programs.get(p.programId!);
      const page = byPath.get(p.path)!;
      if (!program) return true;
      const url = bench.site.url(host, p.path);
      const before = runProgram(program, parsePage(url, page.html), fields);
      const after = runProgram(program, parsePage(url, drift(page.html)), fields);
      return disagreeingFields(fields, after, before).length > 0;
    }).length;
    Object.assign(out, {
      drift_after_pages: driftAfter,
      old_programs_retired: retiredOld.length,
      drifted_pages_through_old_program: throughOld.length,
      drifted_pages_by_old_program: throughOld.filter((p) => p.method === 'selectors').length,
      // In serve order: how many drifted pages were served up to the last one the old program saw.
      pages_until_retired: retiredOld.length > 0 && lastOrder !== null ? lastOrder - driftAfter : null,
      drifted_pages_the_change_broke_for_old_program: changed,
      wrong_fields_from_old_program_after_drift: throughOld.filter((p) => p.method === 'selectors').reduce((n, p) => n + p.wrong.length, 0),
    });
  }
  return out;
}

function machine() {
  return { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg_at_start: loadavg().map((x) => round(x, 2)), node: process.version };
}

async function main(): Promise<void> {
  const dir = corpusDir(['swde', 'articles']);
  if (!existsSync(API_MAIN)) {
    console.error(`dist/ is missing (${API_MAIN}): run \`npm run build\` first; the benchmark crawls with the built app.`);
    process.exit(1);
  }
  const swde = loadSwde(dir);
  const swdeSites = [...new Set(swde.map((c) => c.site))];
  const bookPages = new Map(
    swdeSites.map((s) => [
      s,
      swde.filter((c) => c.site === s).map((c) => ({ path: `/p/${c.id.split('/')[1]}.htm`, html: c.html, truth: bookTruth(c) })),
    ]),
  );
  const articlePages: BenchPage[] = loadArticles(dir).map((a) => ({
    path: `/a/${a.id}.html`,
    html: a.html,
    truth: { article_body: a.truth },
  }));
  const specs: SiteSpec[] = [
    ...swdeSites.flatMap((s) => {
      const pages = bookPages.get(s)!;
      return [
        { host: `${s}.test`, pages },
        { host: `${s}-drift.test`, pages, driftAfter: Math.floor(pages.length / 2) },
      ];
    }),
    { host: 'articles.test', pages: articlePages },
  ];
  const site = await startBenchSite(specs);
  const models = await startModelServer({
    answer: (request) => {
      const url = pageUrlOf(request);
      return url ? (site.page(url)?.truth as Json | undefined) : undefined;
    },
  });
  const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
  let app: Embedded | undefined;
  let store: SqliteDocumentStore | undefined;
  const runs: Run[] = [];
  try {
    app = await startEmbeddedApp(baseEnv(site.resolve));
    store = SqliteDocumentStore.open({ file: join(app.dataDir, 'gleaner.db') });
    const bench: Bench = {
      site,
      models,
      app,
      results: await store.collection<ResultDoc>({ name: 'job_results', indexes: [] }),
      templates: await store.collection<LearnedTemplateRecord>(LEARNED_TEMPLATES),
    };
    const go = async (spec: Parameters<typeof crawlRun>[1]): Promise<Run> => {
      log(`crawl ${spec.corpus} ${spec.host} ${spec.mode} (${spec.pages.length} pages, concurrency ${CONCURRENCY})`);
      const run = await crawlRun(bench, spec);
      log(
        `  calls/page ${run.model_calls_per_page.toFixed(3)}  agreement ${(run.agreement * 100).toFixed(2)} %  ${JSON.stringify(run.pages_by_method)}  ${run.crawl_seconds} s`,
      );
      runs.push(run);
      return run;
    };
    for (const s of swdeSites) {
      const pages = bookPages.get(s)!;
      const book = { site: s, schema: BOOK_SCHEMA, pages };
      await go({ ...book, corpus: 'swde-book', host: `${s}.test`, mode: 'model' });
      await go({ ...book, corpus: 'swde-book', host: `${s}.test`, mode: 'auto' });
      await go({ ...book, corpus: 'swde-book-reuse', host: `${s}.test`, mode: 'auto' });
      await go({ ...book, corpus: 'swde-book-drift', host: `${s}-drift.test`, mode: 'auto', driftAfter: Math.floor(pages.length / 2) });
    }
    const articles = { site: 'articles.test', schema: ARTICLE_SCHEMA, pages: articlePages, corpus: 'articles', host: 'articles.test' };
    const articleModel = await go({ ...articles, mode: 'model' });
    const articleAuto = await go({ ...articles, mode: 'auto' });
    articleAuto.overhead = {
      model_calls_per_page: round(articleAuto.model_calls_per_page - articleModel.model_calls_per_page),
      extract_ms_per_page: round((articleAuto.extract_ms_per_page as number) - (articleModel.extract_ms_per_page as number), 1),
      crawl_seconds: round((articleAuto.crawl_seconds as number) - (articleModel.crawl_seconds as number), 1),
    };
  } finally {
    await store?.close();
    await app?.close();
    await site.close();
    await models.close();
    killAll();
  }

  const checks = runs.map((run) => check(run, runs));
  const out = {
    generated_at: new Date().toISOString(),
    machine: machine(),
    path: 'fixture HTTP site → POST /api/v1/crawl (built embedded app) → model server over the OpenAI SDK; results via GET /jobs/{id}/results and /crawl-map',
    model: 'perfect model: the model server answers each page (by its Page URL) with the page ground truth',
    crawl: { concurrency: CONCURRENCY, follow_selector: 'a.bench-page', max_depth: 1, extract_from_seed: false },
    learned_config: DEFAULT_LEARNED_CONFIG,
    targets: TARGETS,
    runs,
    checks,
  };
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'learned.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log('');
  for (const run of runs)
    console.log(
      `${run.corpus.padEnd(16)} ${run.site.padEnd(14)} ${run.mode.padEnd(5)} pages ${String(run.pages).padStart(3)}  calls/page ${run.model_calls_per_page.toFixed(3)}  agreement ${(run.agreement * 100).toFixed(2)} %`,
    );
  for (const c of checks) console.log(`${c.ok ? 'ok  ' : 'MISS'} ${c.run}: ${c.detail}`);
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    console.error(`Targets missed: ${failed.map((c) => c.run).join(', ')}`);
    process.exitCode = 1;
  }
}

function check(run: Run, runs: Run[]): { run: string; ok: boolean; detail: string } {
  const name = `${run.corpus}/${run.site}/${run.mode}`;
  const complete = run.pages_without_result === 0;
  if (run.mode === 'model') {
    const ok = complete && run.model_calls_per_page === 1 && run.agreement === 1;
    return { run: name, ok, detail: `baseline: calls/page ${run.model_calls_per_page} (1.0), agreement ${pct(run.agreement)} (100 %)` };
  }
  const unverified = run.pages_by_unverified_program as number;
  if (run.corpus === 'articles') {
    const model = runs.find((r) => r.corpus === 'articles' && r.mode === 'model');
    const ok = complete && unverified === 0 && run.agreement === model?.agreement;
    return {
      run: name,
      ok,
      detail: `pages by an unverified program ${unverified} (0); agreement ${pct(run.agreement)} = model mode ${pct(model?.agreement ?? 0)}; overhead ${JSON.stringify(run.overhead)}`,
    };
  }
  if (run.corpus === 'swde-book-drift') {
    const retired = (run.old_programs_retired as number) > 0;
    const until = run.pages_until_retired as number | null;
    // No retirement needed when the change touched nothing the old program reads (its output on every drifted page
    // it saw is what it was before the change; its disagreements with the ground truth, if any, are not the drift's).
    const stillRight = (run.drifted_pages_the_change_broke_for_old_program as number) === 0;
    const retiredInTime = retired ? until !== null && until <= TARGETS.drift_retired_within_pages : stillRight;
    const ok = complete && unverified === 0 && run.agreement >= TARGETS.drift_agreement && retiredInTime;
    return {
      run: name,
      ok,
      detail: `${retired ? `retired ${until} pages after the change (≤ ${TARGETS.drift_retired_within_pages})` : stillRight ? 'no retirement needed: the change touched nothing the program reads' : 'NOT retired though the change broke what it reads'}; agreement ${pct(run.agreement)} (≥ ${pct(TARGETS.drift_agreement)}); calls/page ${run.model_calls_per_page}`,
    };
  }
  const ok =
    complete && unverified === 0 && run.model_calls_per_page <= TARGETS.auto_calls_per_page && run.agreement >= TARGETS.auto_agreement;
  return {
    run: name,
    ok,
    detail: `calls/page ${run.model_calls_per_page} (≤ ${TARGETS.auto_calls_per_page}); agreement ${pct(run.agreement)} (≥ ${pct(TARGETS.auto_agreement)}); pages by an unverified program ${unverified}`,
  };
}

function pct(x: number): string {
  return `${(x * 100).toFixed(2)} %`;
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
