import { LearnedSession, type LearnedResult } from './session';
import { BOOK_SCHEMA, book, listingPage, productPage, productUrl, SHOP, truth } from './test-fixtures/shop';
import { resolveLearnedConfig } from './config';
import { makeProgram } from './program';
import { MemoryTemplateStates } from './template-states';
import { disagreeingFields, planFields } from './values';

const fields = planFields(BOOK_SCHEMA).fields;

/** A perfect model over the shop: it answers each product page with that book's values. */
function perfectModel() {
  const calls: string[] = [];
  const model = async ({ url }: { url: string }) => {
    calls.push(url);
    const n = Number(/book-(\d+)$/.exec(url)?.[1]);
    return truth(book(n));
  };
  return { calls, model };
}

async function crawl(session: LearnedSession, numbers: number[], variant: (n: number) => 'classic' | 'drifted' = () => 'classic') {
  const results: Array<LearnedResult & { n: number }> = [];
  for (const n of numbers) results.push({ n, ...(await session.extract(productUrl(book(n)), productPage(book(n), variant(n)))) });
  return results;
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('LearnedSession', () => {
  it('learns on the first pages, verifies on the next, then extracts with the program and spot-checks one page in 25', async () => {
    const { calls, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 109));
    expect(results.slice(0, 3).map((r) => r.role)).toEqual(['learning', 'learning', 'learning']);
    expect(results.slice(3, 8).map((r) => r.role)).toEqual(Array(5).fill('verification'));
    const after = results.slice(8);
    // Active from page 9 on; spot checks at the 25th, 50th, 75th and 100th active page.
    expect(after.filter((r) => r.role === 'spot-check').map((r) => results.indexOf(r) - 8 + 1)).toEqual([25, 50, 75, 100]);
    expect(after.filter((r) => r.role === 'program')).toHaveLength(100 - 4);
    for (const r of results) {
      expect(r.method).toBe(r.role === 'program' ? 'selectors' : 'model');
      expect(r.modelCalls).toBe(r.role === 'program' ? 0 : 1);
      if (r.method === 'selectors') expect(r.programId).toMatch(/^prg_/);
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
    }
    expect(calls).toHaveLength(3 + 5 + 4);
    const [summary] = await session.templates();
    expect(summary).toMatchObject({
      host: 'shop.fixture.test',
      phase: 'active',
      pages: 108,
      modelCalls: 12,
      programPages: 96,
      retired: [],
    });
  });

  it('spot-checks one page in 25 also when pages are in flight together: each takes its place in the count on the newest state', async () => {
    const { calls, model } = perfectModel();
    const inFlight = 6;
    let atModel = 0;
    let done = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const release = () => {
      if (atModel + done === inFlight) open();
    };
    let gated = false;
    const session = new LearnedSession(BOOK_SCHEMA, async (page) => {
      if (gated) {
        atModel++;
        release();
        await gate; // the model answers only once every page in flight has planned (and the others finished)
      }
      return model(page);
    });
    // 3 learning + 5 verification pages, then 24 program pages: the next page is the 25th active one, a spot check.
    const before = await crawl(session, range(1, 33));
    expect(before.filter((r) => r.role === 'spot-check')).toHaveLength(0);
    gated = true;
    const batch = await Promise.all(
      range(33, 33 + inFlight).map(async (n) => {
        const result = await session.extract(productUrl(book(n)), productPage(book(n)));
        done++;
        release();
        return result;
      }),
    );
    gated = false;
    // Every page read the same count (24 active pages); the first to take its place is the 25th, the spot check.
    expect(batch.map((r) => r.role).sort()).toEqual([...Array(inFlight - 1).fill('program'), 'spot-check']);
    expect(atModel).toBe(1);
    // The claimed page counted once: the next spot check is the 50th active page (page 58), not one later or earlier.
    const after = await crawl(session, range(33 + inFlight, 70));
    expect(after.filter((r) => r.role === 'spot-check').map((r) => r.n)).toEqual([58]);
    expect(calls).toHaveLength(3 + 5 + 2);
    for (const r of [...before, ...batch.map((b, i) => ({ ...b, n: 33 + i })), ...after])
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
  });

  it('retires the program when the template drifts, without handing out a wrong value, and learns the new template', async () => {
    const { model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 81), (n) => (n > 30 ? 'drifted' : 'classic'));
    const [summary] = await session.templates();
    expect(await session.templates()).toHaveLength(1); // class names and order are not part of the fingerprint
    expect(summary.retired).toHaveLength(1);
    expect(summary.retired[0].reason).toMatch(/^(empty-field|schema|spot-check): .* disagreed/);
    const firstDrifted = results.findIndex((r) => r.n > 30);
    // The first drifted page is caught by a guard (a field that was always there comes back empty).
    const firstCheck = results.slice(firstDrifted).find((r) => r.role !== 'program')!;
    expect(results.indexOf(firstCheck)).toBe(firstDrifted);
    for (const r of results)
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
    expect(summary.phase).toBe('active');
    expect(summary.program!.id).not.toBe(summary.retired[0].programId);
    expect(results.at(-1)!.method).toBe('selectors');
  });

  it('sends a page whose program output fails the schema to the model at once', async () => {
    const { calls, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    await crawl(session, range(1, 10));
    const before = calls.length;
    // A page of the template without its <h1>: title is required, the program finds none.
    const b = book(50);
    const html = productPage(b)
      .replace(/<h1[\s\S]*?<\/h1>/, '')
      .replace(/<meta property="og:title"[^>]*>/, '');
    const result = await session.extract(productUrl(b), html);
    expect(result).toMatchObject({ method: 'model', role: 'schema', modelCalls: 1 });
    expect(calls.length).toBe(before + 1);
  });

  it('goes back to learning when a verification page disagrees, and relearns from every page seen', async () => {
    // Page 6's og:title meta holds the shop name instead of the title.
    const model = async ({ url }: { url: string }) => truth(book(Number(/book-(\d+)$/.exec(url)![1])));
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const pages = range(1, 30).map((n) => {
      const b = book(n);
      const html = productPage(b);
      return {
        n,
        url: productUrl(b),
        html:
          n === 6
            ? html.replace(/<meta property="og:title" content="[^"]*">/, '<meta property="og:title" content="Gullwing Books">')
            : html,
      };
    });
    const results: LearnedResult[] = [];
    for (const p of pages) results.push(await session.extract(p.url, p.html));
    const machine = await session.machine(results[0].templateId);
    const kinds = machine.events.map((e) => e.kind);
    // The first program reads og:title (microdata and meta rank first); page 6 rejects it, and the program
    // relearned from all six pages reads the heading instead.
    expect(kinds).toEqual(['learned', 'rejected', 'learned', 'accepted']);
    expect(results[5]).toMatchObject({ role: 'verification', disagreeing: ['title'] });
    expect(machine.program!.id).toBe(machine.events[2].programId);
    expect(machine.program!.rules.find((r) => r.field === 'title')).toMatchObject({ source: { kind: 'own-text' } });
    expect(machine.events[0].programId).not.toBe(machine.events[2].programId);
    for (const [i, r] of results.entries()) expect(disagreeingFields(fields, r.data, truth(book(pages[i].n)))).toEqual([]);
    // Why, as the API shows it: the field, the page, both values and the program that was rejected.
    expect(machine.disagreements).toEqual({
      by_field: { title: 1 },
      recent: [
        {
          url: pages[5].url,
          field: 'title',
          role: 'verification',
          program_id: machine.events[0].programId,
          program: 'Gullwing Books',
          model: book(6).title,
        },
      ],
    });
  });

  it('counts disagreements per field on checks and keeps the latest values, cut to a bounded size', async () => {
    const long = `${'A very long publisher name '.repeat(20)}`.trim();
    let wrong = new Set<number>();
    const model = async ({ url }: { url: string }) => {
      const n = Number(/book-(\d+)$/.exec(url)![1]);
      const out = truth(book(n));
      return wrong.has(n) ? { ...out, publisher: long, authors: Array.from({ length: 12 }, (_, i) => `Writer ${i}`) } : out;
    };
    const session = new LearnedSession(BOOK_SCHEMA, model, { spotCheckEvery: 2, retireAfter: 10, retireWindow: 10 });
    await crawl(session, range(1, 9)); // learned and accepted
    // Active from page 9: every second page is a spot check (10, 12, 14, …); two of them disagree on two of seven fields.
    wrong = new Set([10, 14]);
    await crawl(session, range(9, 17));
    const [summary] = await session.templates();
    expect(summary.retired).toEqual([]);
    const machine = await session.machine(summary.templateId);
    expect(machine.active).toMatchObject({ checks: 4, disagreeingChecks: 2, byField: { publisher: 2, authors: 2 } });
    expect(machine.disagreements.by_field).toEqual({ publisher: 2, authors: 2 });
    expect(machine.disagreements.recent.map((d) => [d.url, d.field, d.role])).toEqual([
      [productUrl(book(10)), 'authors', 'spot-check'],
      [productUrl(book(10)), 'publisher', 'spot-check'],
      [productUrl(book(14)), 'authors', 'spot-check'],
      [productUrl(book(14)), 'publisher', 'spot-check'],
    ]);
    const [authors, publisher] = machine.disagreements.recent;
    expect(publisher.program).toBe(book(10).publisher);
    expect(publisher.model).toBe(`${long.slice(0, 200)}…`);
    expect(authors.model).toEqual([...Array.from({ length: 10 }, (_, i) => `Writer ${i}`), '… 2 more']);
    expect(authors.program).toEqual(book(10).authors);
    // Only the latest ten are kept.
    wrong = new Set([18, 20, 22, 24]);
    await crawl(session, range(17, 25));
    expect(machine.disagreements.recent).toHaveLength(10);
    expect(machine.disagreements.recent.at(-1)).toMatchObject({ url: productUrl(book(24)), field: 'publisher' });
    expect(machine.disagreements.by_field).toEqual({ publisher: 6, authors: 6 });
  });

  it('gives pages of another template (or another host) their own template, and never a program they were not verified on', async () => {
    const { model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, async (page) =>
      page.url.includes('/fiction')
        ? { title: 'Fiction', authors: [], publisher: null, published: null, isbn_13: null, price: null, cover: null }
        : model(page),
    );
    await crawl(session, range(1, 12));
    const listing = await session.extract(`${SHOP}/fiction?page=1`, listingPage(1));
    expect(listing).toMatchObject({ method: 'model', role: 'learning' });
    const otherHost = await session.extract('http://mirror.fixture.test/books/book-20', productPage(book(20)));
    expect(otherHost).toMatchObject({ method: 'model', role: 'learning' });
    expect(new Set((await session.templates()).map((t) => t.templateId)).size).toBe(3);
  });

  it('re-verifies a stored program before using it', async () => {
    const { calls, model } = perfectModel();
    const first = new LearnedSession(BOOK_SCHEMA, model);
    await crawl(first, range(1, 12));
    const [learned] = await first.templates();
    const later = new LearnedSession(BOOK_SCHEMA, model);
    await later.adopt('shop.fixture.test', learned.templateId, { url: productUrl(book(1)), html: productPage(book(1)) }, learned.program!);
    calls.length = 0;
    const results = await crawl(later, range(100, 110));
    expect(results.map((r) => r.role)).toEqual([...Array(5).fill('verification'), ...Array(5).fill('program')]);
    expect(results[0].templateId).toBe(learned.templateId);
    expect(calls).toHaveLength(5);
  });

  it("lets a consumer use an active program only after it agreed on the consumer's own pages, a disagreement starting the count again", async () => {
    const { calls, model } = perfectModel();
    let wrongOn = -1;
    const shared = new MemoryTemplateStates(fields, resolveLearnedConfig());
    const answer = async (page: { url: string; html: string }) => {
      const out = await model(page);
      return page.url.endsWith(`book-${wrongOn}`) ? { ...out, publisher: 'Somebody Else' } : out;
    };
    const crawlSession = new LearnedSession(BOOK_SCHEMA, answer, {}, () => shared);
    const extracts = new LearnedSession(BOOK_SCHEMA, answer, {}, () => shared, { consumer: 'extracts' });
    await crawl(crawlSession, range(1, 12)); // 3 learning, 5 verification, 3 program pages
    calls.length = 0;
    wrongOn = 102;
    const first = await crawl(extracts, range(100, 110));
    // One field of five disagrees on book 102: not enough to retire the program, but the count starts again.
    expect(first.map((r) => r.role)).toEqual([...Array(8).fill('reverification'), 'program', 'program']);
    expect(first[2].disagreeing).toEqual(['publisher']);
    expect(first.filter((r) => r.method === 'selectors').every((r) => r.modelCalls === 0 && r.programId)).toBe(true);
    expect(calls).toHaveLength(8);
    // The crawl was not set back: its next pages are still program pages.
    const after = await crawl(crawlSession, range(200, 203));
    expect(after.map((r) => r.role)).toEqual(['program', 'program', 'program']);
    const machine = await crawlSession.machine(first[0].templateId);
    expect(machine.trust.extracts).toEqual({ programId: machine.program!.id, agreeing: 5 });
    expect(machine.phase).toBe('active');
  });

  it("counts a consumer's verification pages towards its trust when its pages learn and verify the program themselves", async () => {
    const { calls, model } = perfectModel();
    const extracts = new LearnedSession(BOOK_SCHEMA, model, {}, undefined, { consumer: 'extracts' });
    const results = await crawl(extracts, range(1, 11));
    expect(results.map((r) => r.role)).toEqual([...Array(3).fill('learning'), ...Array(5).fill('verification'), 'program', 'program']);
    expect(calls).toHaveLength(8);
  });

  it('extracts every page with the model when the schema has fields no program can extract', async () => {
    const schema = {
      ...BOOK_SCHEMA,
      properties: {
        ...BOOK_SCHEMA.properties,
        offer: {
          type: 'object' as const,
          properties: { price: { type: 'number' as const } },
          required: ['price'],
          additionalProperties: false as const,
        },
      },
      required: [...BOOK_SCHEMA.required, 'offer'],
    };
    const { calls, model } = perfectModel();
    const session = new LearnedSession(schema, async (page) => ({ ...(await model(page)), offer: { price: 1 } }));
    expect(session.learnable).toBe(false);
    expect(session.plan.unsupported).toEqual([{ field: 'offer', reason: 'type object' }]);
    const results = await crawl(session, range(1, 15));
    expect(results.every((r) => r.method === 'model' && r.role === 'unlearnable')).toBe(true);
    expect(calls).toHaveLength(14);
  });

  it('refuses a program that does not fit the pages: a stored program that extracts nonsense is rejected in verification', async () => {
    const { model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model, { verifyPages: 3 });
    const bogus = makeProgram(
      fields.map((f) => ({
        field: f.name,
        selector: 'footer p',
        pick: f.list ? 'all' : 'first',
        source: { kind: 'text' },
        steps: [],
        parse: f.kind,
      })),
    );
    await session.adopt('shop.fixture.test', 'tpl_stored', { url: productUrl(book(1)), html: productPage(book(1)) }, bogus);
    const results = await crawl(session, range(1, 4));
    expect(results[0]).toMatchObject({ role: 'verification', method: 'model' });
    expect((await session.machine('tpl_stored')).events[0]).toMatchObject({ kind: 'rejected', programId: bogus.id });
    expect(results.every((r) => r.method === 'model')).toBe(true);
  });
});
