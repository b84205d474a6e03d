/**
 * npm run bench:learned:core — learned extraction's core alone, in process: the pages are handed to `LearnedSession`
 * one after the other, in corpus order, with no HTTP, no crawl and no concurrency (the product path is
 * `npm run bench:learned`, learned.bench.ts). Deterministic, a few seconds, and a reference for the crawl's numbers:
 * a difference between the two comes from the crawl (page order, pages in flight while a template learns, the page
 * as fetched), not from the learner. Corpus: $GLEANER_CORPUS_DIR (default and layout: corpus-dir.ts).
 * The model is simulated by a perfect model (each page is answered with its ground-truth values), so the numbers
 * measure the learning alone:
 * - SWDE book pages (2 sites × 250): `model` mode (a model call per page, the baseline) and `auto` mode;
 * - the 181 articles (no shared template), served under one host so the fingerprint has to tell them apart;
 * - drift: halfway through each SWDE site the template changes (class names renamed, detail lists reordered).
 * Model calls per page, field-level agreement with the ground truth, method counts, programs learned and retired,
 * and the CPU overhead of learned extraction per page. Writes bench-results/learned-core.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { JsonSchemaObject } from '../../libs/schema/src';
import { LearnedSession, planFields, valuesAgree, type LearnedResult } from '../../libs/learned/src';
import { loadArticles, loadSwde } from './content-corpus';
import { corpusDir } from './corpus-dir';
import { ARTICLE_SCHEMA, BOOK_SCHEMA, bookTruth, drift, round, type Run } from './learned/corpus';

const TARGETS = { autoCallsPerPage: 0.1, autoAgreement: 0.98, driftAgreement: 0.98 };

interface Page {
  url: string;
  html: string;
  truth: Record<string, unknown>;
}

async function crawl(
  corpus: string,
  site: string,
  mode: 'model' | 'auto',
  schema: JsonSchemaObject,
  pages: Page[],
  driftAt?: number,
): Promise<Run> {
  const fields = planFields(schema).fields;
  const truthByUrl = new Map(pages.map((p) => [p.url, p.truth]));
  let modelCalls = 0;
  const session = new LearnedSession(schema, async ({ url }) => {
    modelCalls++;
    return structuredClone<Record<string, unknown>>(truthByUrl.get(url)!);
  });
  let agree = 0;
  let total = 0;
  const byMethod: Record<string, number> = {};
  const byRole: Record<string, number> = {};
  let unverified = 0;
  const wrong: string[] = [];
  let cpuMs = 0;
  let retiredAt: number | undefined;
  let driftWrongFields = 0;
  for (const [index, page] of pages.entries()) {
    let result: LearnedResult;
    if (mode === 'model') {
      modelCalls++;
      result = {
        data: structuredClone<Record<string, unknown>>(page.truth),
        method: 'model',
        templateId: '-',
        modelCalls: 1,
        role: 'learning',
      };
    } else {
      const callsBefore = modelCalls;
      const started = performance.now();
      result = await session.extract(page.url, page.html);
      cpuMs += performance.now() - started;
      if (result.modelCalls !== modelCalls - callsBefore) throw new Error('model call accounting is off');
      if (
        retiredAt === undefined &&
        driftAt !== undefined &&
        index >= driftAt &&
        (await session.templates()).some((t) => t.retired.length > 0)
      )
        retiredAt = index;
      if (result.method === 'selectors') {
        const machine = await session.machine(result.templateId);
        const accepted = machine.events.some((e) => e.kind === 'accepted' && e.programId === result.programId);
        if (!accepted) unverified++;
      }
    }
    byMethod[result.method] = (byMethod[result.method] ?? 0) + 1;
    byRole[result.role] = (byRole[result.role] ?? 0) + 1;
    for (const field of fields) {
      total++;
      if (valuesAgree(field, result.data[field.name], page.truth[field.name])) agree++;
      else {
        if (driftAt !== undefined && index >= driftAt && (retiredAt === undefined || index <= retiredAt)) driftWrongFields++;
        if (wrong.length < 10) wrong.push(`${page.url} ${field.name}: got ${JSON.stringify(result.data[field.name])?.slice(0, 80)}`);
      }
    }
  }
  const templates = await session.templates();
  return {
    corpus,
    site,
    mode,
    pages: pages.length,
    model_calls_per_page: round(modelCalls / pages.length),
    agreement: round(agree / total),
    model_calls: modelCalls,
    pages_by_method: byMethod,
    ...(mode === 'auto'
      ? {
          pages_by_role: byRole,
          templates: templates.length,
          programs_accepted: templates.reduce((n, t) => n + (t.phase === 'active' ? 1 : 0) + t.retired.length, 0),
          programs_retired: templates.flatMap((t) => t.retired.map((r) => r.reason)),
          pages_by_unverified_program: unverified,
          learned_cpu_ms_per_page: round(cpuMs / pages.length, 2),
          programs: templates
            .filter((t) => t.program)
            .map((t) =>
              t.program!.rules.map(
                (r) =>
                  `${r.field}: ${r.selector} [${r.source.kind}${'label' in r.source ? ` "${r.source.label}"` : ''}${r.steps.map((s) => ` ${s.op}`).join('')}]`,
              ),
            ),
        }
      : {}),
    ...(driftAt !== undefined
      ? {
          drift_at_page: driftAt,
          retired_at_page: retiredAt ?? null,
          pages_until_retired: retiredAt === undefined ? null : retiredAt - driftAt + 1,
          wrong_fields_before_retirement: driftWrongFields,
        }
      : {}),
    ...(wrong.length > 0 ? { disagreements_sample: wrong } : {}),
  };
}

async function main(): Promise<void> {
  const dir = corpusDir(['swde', 'articles']);
  const swde = loadSwde(dir);
  const runs: Run[] = [];
  for (const site of [...new Set(swde.map((c) => c.site))]) {
    const pages = swde.filter((c) => c.site === site).map((c) => ({ url: c.url, html: c.html, truth: bookTruth(c) }));
    runs.push(await crawl('swde-book', site, 'model', BOOK_SCHEMA, pages));
    runs.push(await crawl('swde-book', site, 'auto', BOOK_SCHEMA, pages));
    const half = Math.floor(pages.length / 2);
    const drifted = pages.map((p, i) => (i < half ? p : { ...p, html: drift(p.html) }));
    const driftRun = await crawl('swde-book-drift', site, 'auto', BOOK_SCHEMA, drifted, half);
    runs.push(driftRun);
  }
  // One local host for every article, as a fixture site would serve them: templates must come from structure alone.
  const articles = loadArticles(dir).map((a) => ({
    url: `http://articles.fixture.test/${a.id}`,
    html: a.html,
    truth: { article_body: a.truth },
  }));
  const articleModel = await crawl('articles', 'articles.fixture.test', 'model', ARTICLE_SCHEMA, articles);
  const articleAuto = await crawl('articles', 'articles.fixture.test', 'auto', ARTICLE_SCHEMA, articles);
  articleAuto.overhead_model_calls_per_page = round(articleAuto.model_calls_per_page - articleModel.model_calls_per_page);
  runs.push(articleModel, articleAuto);

  const checks = runs.map((run) => {
    if (run.mode !== 'auto')
      return { run: `${run.corpus}/${run.site}/${run.mode}`, ok: run.model_calls_per_page === 1 && run.agreement === 1 };
    if (run.corpus === 'articles')
      return { run: `${run.corpus}/${run.mode}`, ok: run.pages_by_unverified_program === 0 && run.agreement === articleModel.agreement };
    const agreementTarget = run.corpus === 'swde-book-drift' ? TARGETS.driftAgreement : TARGETS.autoAgreement;
    return {
      run: `${run.corpus}/${run.site}/${run.mode}`,
      ok: run.model_calls_per_page <= TARGETS.autoCallsPerPage && run.agreement >= agreementTarget && run.pages_by_unverified_program === 0,
    };
  });
  const out = {
    generated_at: new Date().toISOString(),
    machine: { cpus: cpus().length, loadavg: loadavg().map((x) => round(x, 2)) },
    model: 'simulated perfect model: each page answered with its ground-truth values (in process, no HTTP)',
    targets: TARGETS,
    runs,
    checks,
  };
  const outDir = resolve(__dirname, '../../bench-results');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'learned-core.json'), `${JSON.stringify(out, null, 2)}\n`);
  for (const run of runs) {
    console.log(
      `${run.corpus.padEnd(16)} ${run.site.padEnd(22)} ${run.mode.padEnd(5)} pages ${String(run.pages).padStart(3)}  calls/page ${run.model_calls_per_page.toFixed(3)}  agreement ${(run.agreement * 100).toFixed(2)} %`,
    );
  }
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    console.error(`Targets missed: ${failed.map((c) => c.run).join(', ')}`);
    process.exitCode = 1;
  }
}

void main();
