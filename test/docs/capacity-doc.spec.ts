/**
 * docs/capacity.md is rendered from test/bench/capacity/capacity.md.tmpl, bench-results/capacity.json and capacity-features.json
 * (docs/contributing.md "Documents and code agree"): a benchmark re-run whose guide was not re-rendered, or a
 * number edited by hand, fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOC_PATH, RESULTS_PATH, TEMPLATE_PATH, readCapacityResults, renderCapacityDoc } from '../bench/capacity/render-doc';

const ROOT = join(__dirname, '..', '..');
const FIX = 'run `npm run bench:capacity -- report` to render it again';

/** Where two texts first differ, as a message; undefined when they are the same. */
function firstDifference(committed: string, rendered: string): string | undefined {
  if (committed === rendered) return undefined;
  const a = committed.split('\n');
  const b = rendered.split('\n');
  const line = a.findIndex((text, i) => text !== b[i]);
  const at = line < 0 ? a.length : line;
  return `${DOC_PATH} is not what the template renders from ${RESULTS_PATH} (${FIX}); line ${at + 1}:\n  committed: ${a[at] ?? '(end of file)'}\n  rendered:  ${b[at] ?? '(end of file)'}`;
}

describe('docs/capacity.md', () => {
  const committed = readFileSync(join(ROOT, DOC_PATH), 'utf8');
  const results = readCapacityResults(ROOT);
  const template = readFileSync(TEMPLATE_PATH, 'utf8');

  it('is capacity.md.tmpl rendered from bench-results/capacity.json', () => {
    expect(firstDifference(committed, renderCapacityDoc(template, results))).toBeUndefined();
  });

  it('is told apart from a guide with one number edited by hand (the comparison is not vacuous)', () => {
    const figure = String(results.projection.target.replicas_default_page_workers);
    const sentence = `${figure} crawler replicas with the default page workers`;
    expect(committed).toContain(sentence);
    const edited = committed.replace(sentence, `${Number(figure) + 1} crawler replicas with the default page workers`);
    expect(firstDifference(edited, renderCapacityDoc(template, results))).toContain(FIX);
  });

  it('is told apart from per-feature runs it was not rendered from (bench-results/capacity-features.json)', () => {
    const rerun = structuredClone(results);
    const dedup = rerun.features?.summary.features.feature_dedup;
    expect(dedup).toBeDefined();
    dedup.own_per_page.write_commands += 1;
    expect(firstDifference(committed, renderCapacityDoc(template, rerun))).toContain(FIX);
  });

  it('is told apart from a re-run benchmark file it was not rendered from', () => {
    const rerun = structuredClone(results);
    rerun.summary.cluster_1.store.per_page.write_commands *= 1.01; // within what the prose allows between runs
    expect(firstDifference(committed, renderCapacityDoc(template, rerun))).toContain(FIX);
  });
});
