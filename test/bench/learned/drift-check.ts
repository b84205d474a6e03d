/**
 * Whether a drift was caught in time (both learned benchmarks): the rules in use before the change, which of them
 * the change broke (their output on a drifted page differs from their output on the same page before), and how many
 * drifted pages (in serve order) had a field filled by such a broken rule before it was retired. A change that broke
 * no rule needs no retirement.
 */
import { disagreeingFields, parsePage, planFields, runProgram, type ExtractionProgram } from '../../../libs/learned/src';
import type { JsonSchemaObject } from '../../../libs/schema/src';
import { drift } from './corpus';

export interface DriftPage {
  /** 1-based serve order. */
  order: number;
  drifted: boolean;
  method: string;
  programId?: string;
  /** `mixed` pages: the fields the model filled. */
  modelFields?: string[];
  url: string;
  /** The page before the change. */
  html: string;
}

export interface DriftNumbers {
  drift_after_pages: number;
  /** Fields whose rule (in use before the change) the change broke on at least one drifted page. */
  broken_fields: string[];
  /** Drifted pages with a field filled by a broken rule. */
  drifted_pages_through_broken_rule: number;
  /** From the change to the last such page (0: no field was ever filled by a broken rule). */
  pages_until_retired: number;
  /** Broken rules still in the final program. */
  broken_rules_still_in_use: string[];
}

export function driftCheck(
  schema: JsonSchemaObject,
  pages: DriftPage[],
  driftAfter: number,
  programs: Map<string, ExtractionProgram>,
  finalProgram: ExtractionProgram | null,
): DriftNumbers {
  const fields = planFields(schema).fields;
  const lastBefore = pages
    .filter((p) => !p.drifted && p.method !== 'model' && p.programId && programs.has(p.programId))
    .sort((a, b) => b.order - a.order)[0];
  const old = lastBefore ? programs.get(lastBefore.programId!)! : undefined;
  const empty = {
    drift_after_pages: driftAfter,
    broken_fields: [],
    drifted_pages_through_broken_rule: 0,
    pages_until_retired: 0,
    broken_rules_still_in_use: [],
  };
  if (!old) return empty;
  const ruleOf = (program: ExtractionProgram, field: string) => JSON.stringify(program.rules.find((r) => r.field === field) ?? null);
  const broken = new Set<string>();
  const through: DriftPage[] = [];
  for (const page of pages.filter((p) => p.drifted)) {
    const before = runProgram(old, parsePage(page.url, page.html), fields);
    const after = runProgram(old, parsePage(page.url, drift(page.html)), fields);
    const changed = disagreeingFields(fields, after, before);
    for (const f of changed) broken.add(f);
    if (page.method === 'model' || !page.programId) continue;
    const used = programs.get(page.programId);
    const filledByOld = changed.filter(
      (f) => !(page.modelFields ?? []).includes(f) && (!used || ruleOf(used, f) === ruleOf(old, f)) && ruleOf(old, f) !== 'null',
    );
    if (filledByOld.length > 0) through.push(page);
  }
  const last = through.length > 0 ? Math.max(...through.map((p) => p.order)) : null;
  return {
    drift_after_pages: driftAfter,
    broken_fields: [...broken].sort(),
    drifted_pages_through_broken_rule: through.length,
    pages_until_retired: last === null ? 0 : last - driftAfter,
    broken_rules_still_in_use: [...broken].filter(
      (f) => finalProgram && ruleOf(finalProgram, f) === ruleOf(old, f) && ruleOf(old, f) !== 'null',
    ),
  };
}
