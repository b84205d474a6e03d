/**
 * npm run bench:grounding — the grounding check (docs/provenance.md) on the SWDE book pages and the articles of
 * $GLEANER_CORPUS_DIR (default and layout: corpus-dir.ts), through the product path: each corpus served by a local
 * fixture site (learned/site.ts) and crawled by the built embedded app (`npm run build` first) with
 * `extraction_mode: model`, `provenance: full`, the model server answering each page (by its `Page URL:`) with
 *   (a) the page's ground truth, and
 *   (b) the ground truth with 10 % of the corpus's values corrupted (grounding/corrupt.ts: a digit changed, a name
 *       swapped for another real name, a date shifted, a value from another page).
 * Scored from the result items' `metadata.fields` (grounding/score.ts): true values grounded (target ≥ 99 %, false
 * alarms ≤ 1 %) on (a), corrupted values flagged (target ≥ 95 %) on (b); a corrupted value that occurs on the page
 * anyway and a value past the length bound are left out of the rates and counted apart.
 * The CPU cost per page is measured in process against the HTML conversion of the same pages in the same run
 * (grounding/cost.ts), with the bytes `metadata.fields` adds per page in each mode.
 * Writes bench-results/grounding.json; exits 1 when a target is missed, the corpus is missing, or dist/ is.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { GROUNDING_LIMITS } from '../../libs/provenance/src';
import { startModelServer } from '../fixtures/model-server';
import { loadArticles, loadSwde } from './content-corpus';
import { corpusDir } from './corpus-dir';
import { API_MAIN, ROOT, baseEnv, call, startCrawl, startEmbeddedApp, waitJob, type Embedded } from './crawl/gleaner';
import { killAll } from './crawl/procs';
import { measureCost, type CostPage } from './grounding/cost';
import { corruptCorpus, type Corruption } from './grounding/corrupt';
import { scoreCorrupted, scoreTrue, type ResultItem } from './grounding/score';
import { ARTICLE_SCHEMA, BOOK_SCHEMA, bookTruth, round, type BenchPage } from './learned/corpus';
import { oracleAnswer } from './learned/crawl-run';
import { startBenchSite, type BenchSite } from './learned/site';
import type { JsonSchemaObject } from '../../libs/schema/src';

const TARGETS = { true_grounded: 0.99, false_alarms: 0.01, corrupted_flagged: 0.95 };
const CONCURRENCY = Number(process.env.BENCH_GROUNDING_CONCURRENCY ?? 6);
const COST_ROUNDS = Number(process.env.BENCH_GROUNDING_ROUNDS ?? 3);
const SEED = 25;

interface Corpus {
  name: string;
  schema: JsonSchemaObject;
  pages: Array<BenchPage & { url: string }>;
  nameFields: string[];
}

async function main(): Promise<void> {
  const dir = corpusDir(['swde', 'articles']);
  if (!existsSync(API_MAIN)) {
    console.error(`dist/ is missing (${API_MAIN}): run \`npm run build\` first; the benchmark crawls with the built app.`);
    process.exit(1);
  }
  const log = (message: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${message}`);
  const corpora: Corpus[] = [
    {
      name: 'swde-book',
      schema: BOOK_SCHEMA,
      nameFields: ['author'],
      pages: loadSwde(dir).map((c) => ({ path: `/p/${c.id.replace('/', '-')}.htm`, url: c.url, html: c.html, truth: bookTruth(c) })),
    },
    {
      name: 'articles',
      schema: ARTICLE_SCHEMA,
      nameFields: [],
      pages: loadArticles(dir).map((a) => ({ path: `/a/${a.id}.html`, url: a.url, html: a.html, truth: { article_body: a.truth } })),
    },
  ];
  const plans = new Map<string, { answers: Array<Record<string, unknown>>; corruptions: Map<string, Corruption[]> }>();
  for (const corpus of corpora) plans.set(corpus.name, corruptCorpus(corpus.pages, corpus.nameFields, SEED));

  log('CPU cost in process (grounding vs the HTML conversion)');
  const cost: Record<string, ReturnType<typeof measureCost>> = {};
  const pageText = new Map<string, string>();
  for (const corpus of corpora) {
    const costPages: CostPage[] = corpus.pages.map((p) => ({ url: p.url, html: p.html, answer: p.truth, schema: corpus.schema }));
    cost[corpus.name] = measureCost(costPages, COST_ROUNDS);
    corpus.pages.forEach((p, i) => {
      const c = cost[corpus.name].converted[i];
      pageText.set(`${corpus.name}${p.path}`, [c.markdown, c.metadata.title ?? '', ...(c.attributes ?? []).map((a) => a.value)].join('\n'));
    });
    const { conversion_ms_per_page, grounding_ms_per_page, grounding_vs_conversion } = cost[corpus.name];
    log(
      `  ${corpus.name}: conversion ${conversion_ms_per_page} ms/page, grounding ${grounding_ms_per_page} ms/page (× ${grounding_vs_conversion})`,
    );
  }

  const hostOf = (corpus: Corpus, answer: 'truth' | 'corrupted') => `${corpus.name}-${answer}.test`;
  const site = await startBenchSite(
    corpora.flatMap((corpus) => [
      { host: hostOf(corpus, 'truth'), pages: corpus.pages },
      {
        host: hostOf(corpus, 'corrupted'),
        pages: corpus.pages.map((p, i) => ({ ...p, truth: plans.get(corpus.name)!.answers[i] })),
      },
    ]),
  );
  const models = await startModelServer({ answer: (request) => oracleAnswer(site, request) as never });
  let app: Embedded | undefined;
  const runs: Record<string, unknown>[] = [];
  try {
    app = await startEmbeddedApp(baseEnv(site.resolve));
    for (const corpus of corpora) {
      for (const answer of ['truth', 'corrupted'] as const) {
        const host = hostOf(corpus, answer);
        log(`crawl ${host} (${corpus.pages.length} pages, concurrency ${CONCURRENCY})`);
        const { items, seconds } = await crawl(app, site, host, corpus, models.openaiBaseUrl);
        const text = (path: string) => pageText.get(`${corpus.name}${path}`) ?? '';
        const score =
          answer === 'truth' ? scoreTrue(items, corpus.pages.length) : scoreCorrupted(items, plans.get(corpus.name)!.corruptions, text);
        runs.push({ corpus: corpus.name, answer, pages: corpus.pages.length, crawl_seconds: seconds, ...score });
        log(`  ${JSON.stringify(score).slice(0, 300)}`);
      }
    }
  } finally {
    await app?.close();
    await site.close();
    await models.close();
    killAll();
  }

  const truths = runs.filter((r) => r.answer === 'truth') as unknown as Array<ReturnType<typeof scoreTrue>>;
  const corrupted = runs.filter((r) => r.answer === 'corrupted') as unknown as Array<ReturnType<typeof scoreCorrupted>>;
  const sum = <T>(xs: T[], f: (x: T) => number) => xs.reduce((a, x) => a + f(x), 0);
  const grounded = sum(truths, (r) => r.grounded);
  const falseAlarms = sum(truths, (r) => r.ungrounded);
  const flagged = sum(corrupted, (r) => r.flagged);
  const missed = sum(corrupted, (r) => r.missed);
  const overall = {
    true_values: sum(truths, (r) => r.values),
    true_grounded_rate: round(grounded / (grounded + falseAlarms)),
    false_alarm_rate: round(falseAlarms / (grounded + falseAlarms)),
    corrupted_values: sum(corrupted, (r) => r.values),
    corrupted_flagged_rate: round(flagged / (flagged + missed)),
    corrupted_on_page_left_out: sum(corrupted, (r) => r.on_page),
    past_length_bound_left_out: sum(corrupted, (r) => r.too_long),
    pages_without_result: sum(truths, (r) => r.missing_items),
  };
  const checks = [
    { target: 'true values grounded', value: overall.true_grounded_rate, ok: overall.true_grounded_rate >= TARGETS.true_grounded },
    { target: 'false alarms', value: overall.false_alarm_rate, ok: overall.false_alarm_rate <= TARGETS.false_alarms },
    {
      target: 'corrupted values flagged',
      value: overall.corrupted_flagged_rate,
      ok: overall.corrupted_flagged_rate >= TARGETS.corrupted_flagged,
    },
    { target: 'every page has its result', value: overall.pages_without_result, ok: overall.pages_without_result === 0 },
  ];
  const out = {
    generated_at: new Date().toISOString(),
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model, loadavg_at_end: loadavg().map((x) => round(x, 2)), node: process.version },
    path: 'fixture HTTP site → POST /api/v1/crawl (built embedded app, extraction_mode model, provenance full, grounding report) → model server over the OpenAI SDK; result items via GET /jobs/{id}/results',
    model:
      '(a) the page ground truth; (b) the ground truth with 10 % of the corpus values corrupted (seeded): digit, name, date, other_page',
    limits: GROUNDING_LIMITS,
    targets: TARGETS,
    overall,
    runs,
    cpu_cost: Object.fromEntries(Object.entries(cost).map(([name, c]) => [name, { ...c, converted: undefined }])),
    checks,
  };
  mkdirSync(join(ROOT, 'bench-results'), { recursive: true });
  writeFileSync(join(ROOT, 'bench-results', 'grounding.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`\n${JSON.stringify(overall, null, 2)}`);
  for (const c of checks) console.log(`${c.ok ? 'ok  ' : 'MISS'} ${c.target}: ${c.value}`);
  if (checks.some((c) => !c.ok)) process.exitCode = 1;
}

/** One crawl of a host's pages (its index links them all); the result items with their metadata. */
async function crawl(
  app: Embedded,
  site: BenchSite,
  host: string,
  corpus: Corpus,
  modelsUrl: string,
): Promise<{ items: ResultItem[]; seconds: number }> {
  const started = Date.now();
  const jobId = await startCrawl(app.url, {
    url: site.url(host, '/'),
    schema: corpus.schema,
    extraction_mode: 'model',
    // 16,000 tokens: the longest article body (53,000 characters) fits in one answer.
    llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-bench', base_url: modelsUrl, max_tokens: 16_000 },
    options: {
      follow_selector: 'a.bench-page',
      max_depth: 1,
      max_pages: corpus.pages.length + 1,
      extract_from_seed: false,
      concurrency: CONCURRENCY,
      fetch_mode: 'static',
      provenance: 'full',
      grounding: 'report',
    },
  });
  const job = await waitJob(app.url, jobId, { everyMs: 500, timeoutMs: 30 * 60_000 });
  if (job.status !== 'completed') throw new Error(`${host}: crawl ${jobId} ended ${job.status}: ${job.error_message}`);
  const items = (await call(app.url, 'GET', `/api/v1/jobs/${jobId}/results`)).body as ResultItem[];
  return { items, seconds: round((Date.now() - started) / 1000, 1) };
}

main().catch((error: unknown) => {
  console.error(error);
  killAll();
  process.exit(1);
});
