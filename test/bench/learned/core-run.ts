/**
 * One in-process crawl of bench:learned:core: pages handed to a `LearnedSession` over the stored template states
 * (SQLite in memory, as the embedded deployment keeps them), in a given order and with a given number of pages in
 * flight. The model is a perfect model (each page answered with its ground truth). With more than one page in
 * flight, each model answer waits a seeded number of event-loop turns, so pages finish out of order as in a crawl,
 * and the same seed gives the same interleaving every time.
 */
import { setImmediate as tick } from 'node:timers/promises';
import { LearnedSession, StoreTemplateStates, schemaKey, type LearnedResult, type LearnedTemplateRecord } from '../../../libs/learned/src';
import type { JsonSchemaObject } from '../../../libs/schema/src';
import type { Collection } from '../../../libs/storage/src';
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
  wrong: string[];
}

export async function coreCrawl(run: CoreCrawl): Promise<PageOutcome[]> {
  const truthByUrl = new Map(run.pages.map((p) => [p.url, p.truth]));
  const delay = seeded(run.seed + 7);
  let calls = 0;
  const session = new LearnedSession(
    run.schema,
    async ({ url }) => {
      calls++;
      if (run.concurrency > 1) for (let n = Math.floor(delay() * 20); n > 0; n--) await tick();
      return structuredClone(truthByUrl.get(url)!);
    },
    {},
    (fields, config) =>
      new StoreTemplateStates(
        run.collection,
        { userId: 'usr_bench', schemaKey: schemaKey(run.schema), sessionId: run.crawlId },
        fields,
        config,
      ),
  );
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
    for (const r of d.state.retired) accepted.add(r.program.id);
    for (const e of d.state.events) if (e.kind === 'accepted' && e.programId) accepted.add(e.programId);
  }
  return accepted;
}

export interface PartNumbers {
  pages: number;
  model_calls: number;
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
  const calls = outcomes.reduce((n, o) => n + o.modelCalls, 0);
  const wrong: Record<string, number> = {};
  for (const o of outcomes) for (const f of o.wrong) wrong[f] = (wrong[f] ?? 0) + 1;
  const wrongTotal = Object.values(wrong).reduce((a, b) => a + b, 0);
  return {
    pages: outcomes.length,
    model_calls: calls,
    model_calls_per_page: round(calls / Math.max(1, outcomes.length)),
    agreement: round(1 - wrongTotal / Math.max(1, outcomes.length * fields)),
    pages_by_method: count((o) => o.method),
    pages_by_role: count((o) => o.role),
    pages_by_unverified_program: outcomes.filter((o) => o.method === 'selectors' && (!o.programId || !accepted.has(o.programId))).length,
    wrong_fields: wrong,
  };
}

/**
 * Programs accepted before the change: those that extracted a page served before it. (A page served before the
 * change may still be in flight when a program learned on drifted pages is accepted, and be checked against it.)
 */
export function oldPrograms(outcomes: PageOutcome[], accepted: Set<string>): Set<string> {
  return new Set(
    outcomes.filter((o) => !o.drifted && o.method === 'selectors' && o.programId && accepted.has(o.programId)).map((o) => o.programId!),
  );
}

/**
 * Drift: the programs accepted before the change, whether they were retired, and how many drifted pages (in
 * arrival order) went through one of them (extracted by it, or checked against it) up to the last one.
 */
export function driftNumbers(outcomes: PageOutcome[], driftAfter: number, retiredIds: Set<string>, accepted: Set<string>) {
  const old = oldPrograms(outcomes, accepted);
  const through = outcomes.filter((o) => o.drifted && o.programId && old.has(o.programId));
  const retired = [...old].filter((id) => retiredIds.has(id));
  const last = through.length > 0 ? Math.max(...through.map((o) => o.order)) : null;
  return {
    drift_after_pages: driftAfter,
    old_programs_retired: retired.length,
    drifted_pages_through_old_program: through.length,
    drifted_pages_by_old_program: through.filter((o) => o.method === 'selectors').length,
    wrong_fields_from_old_program_after_drift: through.filter((o) => o.method === 'selectors').reduce((n, o) => n + o.wrong.length, 0),
    pages_until_retired: retired.length > 0 && last !== null ? last - driftAfter : null,
  };
}
