import { LearnedSession, type LearnedResult } from './session';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../test/fixtures/learned-shop';
import { perfectModel } from '../../../test/fixtures/learned-model';
import { disagreeingFields, planFields } from './values';

const fields = planFields(BOOK_SCHEMA).fields;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function crawl(session: LearnedSession, numbers: number[], html: (n: number) => string = (n) => productPage(book(n))) {
  const results: Array<LearnedResult & { n: number }> = [];
  for (const n of numbers) results.push({ n, ...(await session.extract(productUrl(book(n)), html(n))) });
  return results;
}

/** From page 40 on, the shop prints "Imprint:" where it printed "Publisher:" (one field's markup changes). */
const relabelled = (n: number) => (n >= 40 ? productPage(book(n)).replace('<b>Publisher:</b>', '<b>Imprint:</b>') : productPage(book(n)));
/** Pages divisible by 7 have no publisher line (and the model answers null). */
const withoutPublisher = (n: number) =>
  n % 7 === 0 ? productPage(book(n)).replace(/<li><b>Publisher:<\/b>[^<]*<\/li>/, '') : productPage(book(n));

describe('LearnedSession, field by field', () => {
  it('retires the one rule that stops working and learns that field again with partial calls, while the program fills the others', async () => {
    const { requests, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 80), relabelled);
    const [summary] = await session.templates();
    expect(summary.retired.map((r) => [r.field, r.reason])).toEqual([
      ['publisher', 'empty-field: publisher disagreed (2 of the last 3 checks)'],
    ]);
    const machine = await session.machine(summary.templateId);
    expect(machine.events.filter((e) => e.field === 'publisher').map((e) => e.kind)).toEqual([
      'learned',
      'accepted',
      'retired',
      'learned',
      'accepted',
    ]);
    expect(machine.field('publisher').rule).toMatchObject({ source: { kind: 'after-label', label: 'Imprint:' } });
    // After the change the model is asked for the publisher alone (whole page: its rule finds nothing, or is new), spot checks aside.
    const changed = requests.filter((q) => Number(/book-(\d+)$/.exec(q.url)![1]) >= 40);
    const partial = changed.filter((q) => q.kind === 'partial');
    expect(partial.length).toBe(2 + 3 + 5 - 1); // two guard pages (the second retires the rule; it is the first learning sample), 2 more learning, 5 verification
    for (const q of partial)
      expect(q).toMatchObject({ fields: ['publisher'], schema: { properties: { publisher: BOOK_SCHEMA.properties.publisher } } });
    expect(partial.every((q) => q.excerpt === undefined)).toBe(true);
    expect(changed.filter((q) => q.kind === 'full').length).toBeLessThanOrEqual(2);
    const mixed = results.filter((r) => r.method === 'mixed');
    expect(mixed).toHaveLength(partial.length);
    for (const r of mixed)
      expect(r).toMatchObject({ modelFields: ['publisher'], call: 'partial', modelCalls: 1, programId: expect.stringMatching(/^prg_/) });
    for (const r of results)
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
    expect(results.at(-1)!.method).toBe('selectors');
  });

  it("takes a field's absence as the program's valid outcome once the model confirms it, and asks no more", async () => {
    const { requests, model } = perfectModel((n, answer) => (n % 7 === 0 ? { ...answer, publisher: null } : answer));
    const session = new LearnedSession(BOOK_SCHEMA, model);
    // Pages 1-6 learn and verify (page 7 lacks the publisher: it is the fifth verification page, the model agrees: it is absent).
    const results = await crawl(session, range(1, 40), withoutPublisher);
    const [summary] = await session.templates();
    const machine = await session.machine(summary.templateId);
    // Page 7 was a verification page, so the publisher was never "always filled": no guard, no call for pages 14, 21, 28, 35.
    expect(machine.field('publisher').always_filled).toBe(false);
    for (const n of [14, 21, 28, 35])
      expect(results.find((r) => r.n === n)).toMatchObject({ method: 'selectors', data: { publisher: null } });
    expect(summary.retired).toEqual([]);
    expect(requests.filter((q) => q.kind === 'partial')).toEqual([]);
  });

  it('asks once for an always-filled field found empty, and when the model agrees it is absent the field becomes optional', async () => {
    // Learned and verified on pages that all have a publisher; from page 20 on every seventh page has none.
    const html = (n: number) => (n >= 20 ? withoutPublisher(n) : productPage(book(n)));
    const { requests, model } = perfectModel((n, answer) => (n >= 20 && n % 7 === 0 ? { ...answer, publisher: null } : answer));
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 45), html);
    const [summary] = await session.templates();
    const machine = await session.machine(summary.templateId);
    expect(results.find((r) => r.n === 21)).toMatchObject({
      method: 'mixed',
      role: 'empty-field',
      modelFields: ['publisher'],
      call: 'partial',
    });
    expect(requests.filter((q) => q.kind === 'partial').map((q) => q.url)).toEqual([productUrl(book(21))]);
    for (const n of [28, 35, 42]) expect(results.find((r) => r.n === n)).toMatchObject({ method: 'selectors', modelCalls: 0 });
    expect(machine.field('publisher')).toMatchObject({ phase: 'active', always_filled: false, checks: { total: 2, disagreeing: 0 } }); // page 21 and the spot check on page 33
    const expected = (n: number) => (n >= 20 && n % 7 === 0 ? { ...truth(book(n)), publisher: null } : truth(book(n)));
    for (const r of results)
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, expected(r.n)) }).toEqual({ n: r.n, disagree: [] });
    expect(machine.disagreements.by_field).toEqual({});
  });

  it('still catches a field that is not optional after all: an empty value the model disagrees with is a check that fails', async () => {
    // From page 20 on the publisher line is gone from every page, but the model still reads a publisher from the page.
    const html = (n: number) =>
      n >= 20
        ? productPage(book(n)).replace(/<li><b>Publisher:<\/b>[^<]*<\/li>/, `<p>Published by ${book(n).publisher}</p>`)
        : productPage(book(n));
    const { model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 40), html);
    const [summary] = await session.templates();
    expect(summary.retired.map((r) => r.field)).toEqual(['publisher']);
    // The guard sends the empty publisher to the model on pages 20 and 21; the second disagreement retires the rule.
    expect(results.filter((r) => r.n >= 20 && r.n <= 21).map((r) => r.role)).toEqual(['empty-field', 'empty-field']);
    for (const r of results)
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
  });

  it('does not let one page whose answer no rule can give keep a field learning: with a fourth page it is left out', async () => {
    const { model } = perfectModel((n, answer) => (n === 2 ? { ...answer, publisher: 'Somebody Else' } : answer));
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 12));
    const [summary] = await session.templates();
    const machine = await session.machine(summary.templateId);
    const publisher = machine.events.filter((e) => e.field === 'publisher');
    expect(publisher.map((e) => e.kind)).toEqual(['learn-failed', 'learned', 'accepted']);
    expect(publisher[1].detail).toMatch(/from 4 pages \(1 not reproduced\)/);
    // Learned on page 4, verified on pages 5-9: from page 10 on the program fills every field.
    expect(results.slice(9).map((r) => r.method)).toEqual(['selectors', 'selectors']);
    expect(machine.phase).toBe('active');
  });

  it('retires at once every rule that disagrees on a page where at least half the fields disagree (retireFieldShare)', async () => {
    let wrongOn = -1;
    const { model } = perfectModel((n, answer) =>
      n === wrongOn ? { ...answer, title: 'X', authors: ['Y'], publisher: 'Z', isbn_13: '9780000000000' } : answer,
    );
    const session = new LearnedSession(BOOK_SCHEMA, model, { spotCheckEvery: 5 });
    await crawl(session, range(1, 13)); // active from page 9: pages 9-12 by the program
    wrongOn = 13; // the 5th active page: a spot check
    const [check] = await crawl(session, [13]);
    expect(check).toMatchObject({ role: 'spot-check', disagreeing: ['title', 'authors', 'publisher', 'isbn_13'] });
    const [summary] = await session.templates();
    // Four of seven fields disagree on one check: no second check is waited for.
    expect(summary.retired.map((r) => r.field)).toEqual(['title', 'authors', 'publisher', 'isbn_13']);
    for (const r of summary.retired) expect(r.reason).toMatch(/^spot-check: \w+ disagreed$/);
    const machine = await session.machine(summary.templateId);
    expect(fields.filter((f) => machine.field(f.name).phase === 'active').map((f) => f.name)).toEqual(['published', 'price', 'cover']);
  });
});
