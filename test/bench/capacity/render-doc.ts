/**
 * docs/capacity.md is rendered, not written: capacity.md.tmpl (next to this file) with every number read
 * from bench-results/capacity.json, so the guide cannot drift from its benchmark. `{{a.b.c}}` is the number
 * (or text) at that path of the file; `{{name}}` is one of the figures doc-figures.ts derives from it (a
 * sum, a ratio, a table). The conclusions the prose draws are checked first (doc-narrative.ts).
 *
 * Run by `npm run bench:capacity` (after a run and with `-- report`); test/docs/capacity-doc.spec.ts checks
 * that the committed guide is what the committed file renders to.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { derivedFigures, lookup, type CapacityResults } from './doc-figures';
import { narrative } from './doc-narrative';
import { formatNumber } from './format-number';

export type { CapacityResults } from './doc-figures';

export const TEMPLATE_PATH = join(__dirname, 'capacity.md.tmpl');
export const RESULTS_PATH = join('bench-results', 'capacity.json');
/** The per-feature runs (features.ts), rendered in the guide's "What each feature adds per page". */
export const FEATURES_PATH = join('bench-results', 'capacity-features.json');
export const DOC_PATH = join('docs', 'capacity.md');

/** docs/capacity.md from its template and the benchmark's file. Throws on a path the file lacks or a conclusion it no longer supports. */
export function renderCapacityDoc(template: string, results: CapacityResults): string {
  const figures = derivedFigures(results);
  const broken = narrative(results, figures).filter((claim) => !claim.holds);
  if (broken.length > 0) {
    throw new Error(
      `capacity.json no longer supports what test/bench/capacity/capacity.md.tmpl says: ${broken.map((c) => c.says).join('; ')}. ` +
        'Change the text (and its check in doc-narrative.ts), then run npm run bench:capacity -- report.',
    );
  }
  return template.replace(/\{\{([^}]+)\}\}/g, (_, key: string) => {
    const value = key in figures ? figures[key] : lookup(results, key);
    if (typeof value === 'string') return value;
    if (typeof value === 'number') return formatNumber(value);
    throw new Error(`capacity.md.tmpl names {{${key}}}, which capacity.json does not hold`);
  });
}

/** bench-results/capacity.json under `root`, with bench-results/capacity-features.json as `features` when there is one. */
export function readCapacityResults(root: string): CapacityResults {
  const results = JSON.parse(readFileSync(join(root, RESULTS_PATH), 'utf8')) as CapacityResults;
  const features = join(root, FEATURES_PATH);
  if (existsSync(features)) results.features = JSON.parse(readFileSync(features, 'utf8')) as CapacityResults['features'];
  return results;
}

/** Rewrites docs/capacity.md under `root` from the template, bench-results/capacity.json and capacity-features.json. */
export function writeCapacityDoc(root: string): string {
  const results = readCapacityResults(root);
  const path = join(root, DOC_PATH);
  writeFileSync(path, renderCapacityDoc(readFileSync(TEMPLATE_PATH, 'utf8'), results));
  return path;
}
