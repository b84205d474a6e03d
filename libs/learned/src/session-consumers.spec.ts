import { resolveLearnedConfig } from './config';
import { ruleKey } from './field-state';
import { LearnedSession, type LearnedResult } from './session';
import { MemoryTemplateStates } from './template-states';
import { perfectModel } from '../../../test/fixtures/learned-model';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../test/fixtures/learned-shop';
import { disagreeingFields, planFields } from './values';

const fields = planFields(BOOK_SCHEMA).fields;
const names = fields.map((f) => f.name);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function crawl(session: LearnedSession, numbers: number[], html: (n: number) => string = (n) => productPage(book(n))) {
  const results: Array<LearnedResult & { n: number }> = [];
  for (const n of numbers) results.push({ n, ...(await session.extract(productUrl(book(n)), html(n))) });
  return results;
}

describe('LearnedSession consumers', () => {
  it("lets a consumer use a rule only after it agreed on the consumer's own pages, each field on its own, read from excerpts", async () => {
    let wrongOn = -1;
    const { calls, requests, model } = perfectModel((n, answer) => (n === wrongOn ? { ...answer, publisher: 'Somebody Else' } : answer));
    const shared = new MemoryTemplateStates(fields, resolveLearnedConfig());
    const learner = new LearnedSession(BOOK_SCHEMA, model, {}, () => shared, { consumer: 'crawl:1' });
    const extracts = new LearnedSession(BOOK_SCHEMA, model, {}, () => shared, { consumer: 'extracts' });
    await crawl(learner, range(1, 12)); // 3 learning, 5 verification, 3 program pages
    calls.length = 0;
    requests.length = 0;
    wrongOn = 102;
    const first = await crawl(extracts, range(100, 110));
    // Every field is re-verified on the consumer's first five pages; book 102's publisher disagrees, so the publisher
    // alone is asked on three more pages (its count starts again), while the program fills the other fields.
    expect(first.map((r) => r.role)).toEqual([
      ...Array(5).fill('reverification'),
      ...Array(3).fill('reverification'),
      'program',
      'program',
    ]);
    expect(first.map((r) => r.method)).toEqual([...Array(5).fill('model'), ...Array(3).fill('mixed'), 'selectors', 'selectors']);
    expect(first[2].disagreeing).toEqual(['publisher']);
    expect(first.slice(5, 8).every((r) => r.modelFields!.join() === 'publisher')).toBe(true);
    expect(calls).toHaveLength(8);
    // Re-verification reads the page's text around what the rules found: partial calls with an excerpt.
    expect(requests.every((q) => q.kind === 'partial' && q.excerpt !== undefined)).toBe(true);
    expect(requests.slice(0, 5).every((q) => q.fields.join() === names.join())).toBe(true);
    const excerpt = requests[0].excerpt!;
    expect(excerpt).toContain(`og:title: ${book(100).title}`);
    expect(excerpt).toContain(book(100).publisher);
    expect(excerpt).toContain(book(100).isbn13);
    expect(excerpt.length).toBeLessThan(productPage(book(100)).length / 2);
    for (const r of first) {
      const expected = r.n === 102 ? { ...truth(book(102)), publisher: 'Somebody Else' } : truth(book(r.n));
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, expected) }).toEqual({ n: r.n, disagree: [] });
    }
    // The learning consumer was not set back: its next pages are still program pages.
    expect((await crawl(learner, range(200, 203))).map((r) => r.role)).toEqual(['program', 'program', 'program']);
    const machine = await learner.machine(first[0].templateId);
    expect(machine.trust.extracts.publisher).toEqual({ rule: ruleKey(machine.field('publisher').rule), agreeing: 5 });
    expect(machine.trust.extracts.title).toEqual({ rule: ruleKey(machine.field('title').rule), agreeing: 5 }); // not asked after its fifth page
    expect(machine.phase).toBe('active');
  });

  it("counts a consumer's verification pages towards its trust when its pages learn and verify the rules themselves", async () => {
    const { calls, model } = perfectModel();
    const extracts = new LearnedSession(BOOK_SCHEMA, model, {}, undefined, { consumer: 'extracts' });
    const results = await crawl(extracts, range(1, 11));
    expect(results.map((r) => r.role)).toEqual([...Array(3).fill('learning'), ...Array(5).fill('verification'), 'program', 'program']);
    expect(calls).toHaveLength(8);
  });

  it('sends the whole page when a rule being re-verified found nothing on it (no excerpt can show the value is absent)', async () => {
    const { requests, model } = perfectModel((n, answer) => (n === 101 ? { ...answer, publisher: null } : answer));
    const shared = new MemoryTemplateStates(fields, resolveLearnedConfig());
    await crawl(new LearnedSession(BOOK_SCHEMA, model, {}, () => shared, { consumer: 'crawl:1' }), range(1, 10));
    requests.length = 0;
    const later = new LearnedSession(BOOK_SCHEMA, model, {}, () => shared, { consumer: 'crawl:2' });
    const html = (n: number) => (n === 101 ? productPage(book(n)).replace(/<li><b>Publisher:<\/b>[^<]*<\/li>/, '') : productPage(book(n)));
    const results = await crawl(later, [100, 101], html);
    expect(requests.map((q) => [q.kind, q.excerpt === undefined])).toEqual([
      ['partial', false],
      ['full', true],
    ]);
    expect(results[1]).toMatchObject({ method: 'model', call: 'full', data: { publisher: null } });
  });

  it('has two crawls of one template re-verify for themselves without sending each other back to verification', async () => {
    const { model } = perfectModel();
    const shared = new MemoryTemplateStates(fields, resolveLearnedConfig());
    const a = new LearnedSession(BOOK_SCHEMA, model, {}, () => shared, { consumer: 'crawl:a' });
    const b = new LearnedSession(BOOK_SCHEMA, model, {}, () => shared, { consumer: 'crawl:b' });
    await crawl(a, range(1, 10)); // crawl a learned the template
    // The two crawls take turns page by page.
    const turns: Array<LearnedResult & { crawl: string }> = [];
    for (const n of range(100, 112)) {
      turns.push({ crawl: 'a', ...(await a.extract(productUrl(book(n)), productPage(book(n)))) });
      turns.push({ crawl: 'b', ...(await b.extract(productUrl(book(n + 500)), productPage(book(n + 500)))) });
    }
    const of = (crawl: string) => turns.filter((t) => t.crawl === crawl).map((t) => t.role);
    expect(of('a').every((role) => role === 'program' || role === 'spot-check')).toBe(true);
    expect(of('b')).toEqual([...Array(5).fill('reverification'), ...of('b').slice(5)]);
    expect(
      of('b')
        .slice(5)
        .every((role) => role === 'program' || role === 'spot-check'),
    ).toBe(true);
    expect((await a.machine(turns[0].templateId)).phase).toBe('active');
  });
});
