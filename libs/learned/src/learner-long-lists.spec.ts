import { LIST_LAYOUTS, listPage, products } from '../../../test/fixtures/long-lists';
import { parsePage } from './dom';
import { learnProgram, type LearningSample } from './learner';
import { runProgram } from './program';
import { disagreeingFields, planFields } from './values';

/**
 * Learned lists of hundreds of items (docs/long-lists.md "Learned lists"): a program learned from three catalogue
 * pages reads every item of a longer page of the template, in order, with no model call and no output cap.
 */
const SCHEMA = {
  type: 'object' as const,
  properties: {
    title: { type: 'string' as const },
    names: { type: 'array' as const, items: { type: 'string' as const } },
    skus: { type: 'array' as const, items: { type: 'string' as const } },
  },
};
const fields = planFields(SCHEMA).fields;

function truth(count: number) {
  const list = products(count);
  return { title: `Catalogue of ${count} products`, names: list.map((p) => p.name), skus: list.map((p) => p.sku) };
}

const sample = (layout: (typeof LIST_LAYOUTS)[number], count: number): LearningSample => ({
  page: parsePage(`http://lists.test/${layout}/${count}`, listPage(layout, count)),
  output: truth(count),
});

describe.each(LIST_LAYOUTS.filter((l) => l !== 'table'))('a learned program on %s catalogues of hundreds of items', (layout) => {
  it('learns from pages of 150, 300 and 450 items and reads all 1,000 of a longer page in order', () => {
    const learned = learnProgram(
      fields,
      [150, 300, 450].map((n) => sample(layout, n)),
    );
    expect(learned.failures).toEqual([]);
    const page = sample(layout, 1000);
    const out = runProgram(learned.program!, page.page, fields) as ReturnType<typeof truth>;
    expect(out.skus).toHaveLength(1000);
    expect(disagreeingFields(fields, out, page.output)).toEqual([]);
  });
});

describe('a learned program on a table catalogue', () => {
  // Known limit: the columns of a table whose cells carry no class or label have no candidate rule (the learner
  // proposes no column-position selectors), so such a list stays the model's (chunked: docs/long-lists.md).
  it('learns no rule for the columns of an unlabelled table: the lists stay with the model', () => {
    const learned = learnProgram(
      fields,
      [150, 300, 450].map((n) => sample('table', n)),
    );
    expect(learned.failures.map((f) => f.field).sort()).toEqual(['names', 'skus']);
  });
});
