/**
 * One in-process crawl of bench:learned:core: pages handed to a crawl's `LearnedSession` (`crawlSession`: the
 * crawl is a consumer of the stored templates, SQLite in memory as the embedded deployment keeps them), in a given
 * order and with a given number of pages in flight. The model is a perfect model (each page answered with its ground
 * truth, restricted to the fields asked). With more than one page in flight, each model answer waits a seeded number
 * of event-loop turns, so pages finish out of order as in a crawl, and the same seed gives the same interleaving.
 *
 * Each model call is sized as the product would send it (the extraction prompt over the page's markdown, or over
 * the excerpt of a partial call, and the answer), in the model server's tokens (characters / 4): a partial call
 * counts its tokens against the page's full call.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { convertHtml } from '../../../libs/content/src';
import { buildExtractionPrompt } from '../../../libs/extraction/src/prompt';
import { crawlSession, type LearnedResult, type LearnedTemplateRecord, type ModelRequest } from '../../../libs/learned/src';
import type { JsonSchemaObject } from '../../../libs/schema/src';
import type { Collection } from '../../../libs/storage/src';
import { countTokens } from '../../fixtures/model-server';
import { agreement, drift, round } from './corpus';
import { seeded } from './split';

export interface CorePage {
  id: string;
  url: string;
  html: string;
  truth: Record<string, unknown>;
}

export interface CoreCrawl {
  collection: Collection<LearnedTemplateRecord>;
  /** A crawl is a session of its own: a later crawl re-verifies what an earlier one learned. */
  crawlId: string;
  schema: JsonSchemaObject;
  /** In arrival order. */
  pages: CorePage[];
  concurrency: number;
  seed: number;
  /** Pages from this arrival index on are served drifted (docs/learned-extraction.md "Benchmark"). */
  driftAfter?: number;
}

export interface PageOutcome {
  id: string;
  /** 1-based arrival order. */
  order: number;
  drifted: boolean;
  method: string;
  role: string;
  programId?: string;
  modelCalls: number;
  call?: 'full' | 'partial';
  modelFields?: string[];
  /** The call's tokens against the page's full call (1 for a full call). */
  weight: number;
  wrong: string[];
}

const markdown = new Map<string, string>();

/** Tokens of a model call as the model server counts them: system and user prompt, schema, and the answer. */
export function callTokens(request: Pick<ModelRequest, 'url' | 'html' | 'schema'> & { excerpt?: string }, answer: unknown): number {
  let content = request.excerpt;
  if (content === undefined) {
    const key = `${request.url}\n${request.html.length}`;
    if (!markdown.has(key)) markdown.set(key, convertHtml({ html: request.html, url: request.url, mode: 'full' }).markdown);
    content = markdown.get(key)!;
  }
  const prompt = buildExtractionPrompt({
    url: request.url,
    schema: request.schema,
    content,
    truncated: false,
    excerpt: request.excerpt !== undefined,
  });
  return countTokens(`${prompt.system}\n${prompt.user}${JSON.stringify(request.schema)}`) + countTokens(JSON.stringify(answer));
}

export async function coreCrawl(run: CoreCrawl): Promise<PageOutcome[]> {
  const truthByUrl = new Map(run.pages.map((p) => [p.url, p.truth]));
  const delay = seeded(run.seed + 7);
  let calls = 0;
  const weights = new Map<string, number>();
  const session = crawlSession(run.collection, { userId: 'usr_bench', schema: run.schema, crawlId: run.crawlId }, async (request) => {
    calls++;
    if (run.concurrency > 1) for (let n = Math.floor(delay() * 20); n > 0; n--) await tick();
    const truth = truthByUrl.get(request.url)!;
    const answer = Object.fromEntries(request.fields.map((f) => [f, structuredClone(truth[f] ?? null)]));
    if (request.kind === 'partial') {
      const full = callTokens({ url: request.url, html: request.html, schema: run.schema }, truth);
      weights.set(request.url, callTokens(request, answer) / full);
    }
    return answer;
  });
  const outcomes: PageOutcome[] = [];
  let next = 0;
  const lane = async () => {
    while (next < run.pages.length) {
      const index = next++;
      const page = run.pages[index];
      const drifted = run.driftAfter !== undefined && index >= run.driftAfter;
      const result: LearnedResult = await session.extract(page.url, drifted ? drift(page.html) : page.html);
      outcomes.push({
        id: page.id,
        order: index + 1,
        drifted,
        method: result.method,
        role: result.role,
        programId: result.programId,
        modelCalls: result.modelCalls,
        call: result.call,
        modelFields: result.modelFields,
        weight: result.call === 'partial' ? weights.get(page.url)! : result.modelCalls,
        wrong: agreement(run.schema, result.data, page.truth).wrong,
      });
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, run.concurrency) }, lane));
  const counted = outcomes.reduce((n, o) => n + o.modelCalls, 0);
  if (counted !== calls) throw new Error(`model call accounting is off: the pages say ${counted}, the model saw ${calls}`);
  return outcomes.sort((a, b) => a.order - b.order);
}

/** Programs the store shows as accepted for the run's templates (the active one, retired ones, `accepted` events). */
export async function acceptedPrograms(collection: Collection<LearnedTemplateRecord>): Promise<Set<string>> {
  const accepted = new Set<string>();
  for (const d of await collection.find({ kind: 'template' })) {
    if (d.state.phase === 'active' && d.state.program) accepted.add(d.state.program.id);
    for (const p of d.state.programs ?? []) accepted.add(p.id);
    for (const r of d.state.retired) accepted.add(r.program.id);
    for (const e of d.state.events) if (e.kind === 'accepted' && e.programId) accepted.add(e.programId);
  }
  return accepted;
}

export interface PartNumbers {
  pages: number;
  model_calls: { full: number; partial: number; weighted: number };
  model_calls_per_page: number;
  agreement: number;
  pages_by_method: Record<string, number>;
  pages_by_role: Record<string, number>;
  pages_by_unverified_program: number;
  wrong_fields: Record<string, number>;
}

export function partNumbers(outcomes: PageOutcome[], fields: number, accepted: Set<string>): PartNumbers {
  const count = (key: (o: PageOutcome) => string) =>
    outcomes.reduce<Record<string, number>>((acc, o) => ((acc[key(o)] = (acc[key(o)] ?? 0) + 1), acc), {});
  const weighted = outcomes.reduce((n, o) => n + o.weight, 0);
  const wrong: Record<string, number> = {};
  for (const o of outcomes) for (const f of o.wrong) wrong[f] = (wrong[f] ?? 0) + 1;
  const wrongTotal = Object.values(wrong).reduce((a, b) => a + b, 0);
  return {
    pages: outcomes.length,
    model_calls: {
      full: outcomes.filter((o) => o.call === 'full').length,
      partial: outcomes.filter((o) => o.call === 'partial').length,
      weighted: round(weighted, 3),
    },
    model_calls_per_page: round(weighted / Math.max(1, outcomes.length)),
    agreement: round(1 - wrongTotal / Math.max(1, outcomes.length * fields)),
    pages_by_method: count((o) => o.method),
    pages_by_role: count((o) => o.role),
    pages_by_unverified_program: outcomes.filter((o) => o.method === 'selectors' && (!o.programId || !accepted.has(o.programId))).length,
    wrong_fields: wrong,
  };
}
