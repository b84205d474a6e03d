import { LearnedSession, type LearnedResult } from './session';
import { BOOK_SCHEMA, book, listingPage, productPage, productUrl, SHOP, truth } from '../../../test/fixtures/learned-shop';
import { perfectModel } from '../../../test/fixtures/learned-model';
import { ruleKey } from './field-state';
import { parsePage } from './dom';
import { makeProgram, runProgram } from './program';
import { disagreeingFields, planFields } from './values';

const fields = planFields(BOOK_SCHEMA).fields;

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
      if (r.modelCalls === 1) expect(r.call).toBe('full');
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

  it('retires the rules a drift breaks within two pages, without handing out a wrong value; the other fields go on by the program', async () => {
    const { requests, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 81), (n) => (n > 30 ? 'drifted' : 'classic'));
    expect(await session.templates()).toHaveLength(1); // class names and order are not part of the fingerprint
    const [summary] = await session.templates();
    // The fields whose accepted rules read something the drift changed.
    const before = summary.retired[0].programId;
    const old = (await session.machine(summary.templateId)).programs.find((p) => p.id === before)!;
    const drifted = parsePage(productUrl(book(31)), productPage(book(31), 'drifted'));
    const broken = disagreeingFields(fields, runProgram(old, drifted, fields), truth(book(31)));
    expect(broken.length).toBeGreaterThan(0);
    expect(broken.length).toBeLessThan(fields.length);
    expect(summary.retired.map((r) => r.field).sort()).toEqual([...broken].sort());
    for (const r of summary.retired) expect(r.reason).toMatch(/^empty-field: \w+ disagreed \(2 of the last 2 checks\)$/);
    // The first drifted page is caught by a guard (fields that were always there come back empty): only those go to the model.
    const firstDrifted = results.findIndex((r) => r.n > 30);
    expect(results[firstDrifted]).toMatchObject({ method: 'mixed', call: 'partial', role: 'empty-field' });
    expect([...results[firstDrifted].modelFields!].sort()).toEqual([...broken].sort());
    for (const r of results)
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
    // While the broken fields learn again, every other call is partial: the model is asked for the broken fields only.
    const afterDrift = requests.filter((q) => Number(/book-(\d+)$/.exec(q.url)![1]) > 30);
    for (const q of afterDrift.filter((q) => q.kind === 'partial')) expect(q.fields.every((f) => broken.includes(f))).toBe(true);
    expect(afterDrift.filter((q) => q.kind === 'full').length).toBeLessThanOrEqual(2); // spot checks only
    expect(summary.phase).toBe('active');
    expect(summary.program!.id).not.toBe(before);
    expect(results.at(-1)!.method).toBe('selectors');
  });

  it('asks the model for just the field whose value fails its schema, and keeps the program for the others', async () => {
    const { calls, requests, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    await crawl(session, range(1, 10));
    const before = calls.length;
    // A page of the template without its <h1>: title is required, the program finds none.
    const b = book(50);
    const html = productPage(b)
      .replace(/<h1[\s\S]*?<\/h1>/, '')
      .replace(/<meta property="og:title"[^>]*>/, '');
    const result = await session.extract(productUrl(b), html);
    expect(result).toMatchObject({ method: 'mixed', role: 'schema', modelCalls: 1, call: 'partial', modelFields: ['title'] });
    expect(calls.length).toBe(before + 1);
    expect(requests.at(-1)).toMatchObject({
      kind: 'partial',
      fields: ['title'],
      schema: { properties: { title: { type: 'string' } }, required: ['title'] },
    });
    expect(requests.at(-1)!.excerpt).toBeUndefined(); // the rule found nothing: the model reads the whole page
    expect(result.data).toEqual(truth(b));
    expect(Object.keys(result.data)).toEqual(fields.map((f) => f.name));
  });

  it("goes back to learning when a field's verification page disagrees, and relearns that field from every page seen", async () => {
    // Page 6's og:title meta holds the shop name instead of the title.
    const { requests, model } = perfectModel();
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
    const title = machine.events.filter((e) => e.field === 'title');
    // The first title rule reads og:title (microdata and meta rank first); page 6 rejects it, and the rule
    // relearned from all six pages reads the heading instead.
    expect(title.map((e) => e.kind)).toEqual(['learned', 'rejected', 'learned', 'accepted']);
    expect(title[0].programId).not.toBe(title[2].programId);
    expect(results[5]).toMatchObject({ role: 'verification', disagreeing: ['title'] });
    expect(machine.field('title').rule).toMatchObject({ source: { kind: 'own-text' } });
    expect(ruleKey(machine.field('title').rule)).toBe(title[2].programId);
    // The other fields were accepted after their five verification pages (page 8); the title is verified on pages 7-11,
    // the model asked for it alone on the pages between.
    for (const other of fields.filter((f) => f.name !== 'title'))
      expect(machine.events.filter((e) => e.field === other.name).map((e) => e.kind)).toEqual(['learned', 'accepted']);
    expect(results.slice(8, 11).map((r) => [r.method, r.call, r.modelFields])).toEqual(Array(3).fill(['mixed', 'partial', ['title']]));
    expect(requests.slice(8, 11).every((q) => q.excerpt === undefined)).toBe(true); // a rule being verified sees the whole page
    expect(results[11].method).toBe('selectors');
    for (const [i, r] of results.entries()) expect(disagreeingFields(fields, r.data, truth(book(pages[i].n)))).toEqual([]);
    // Why, as the API shows it: the field, the page, both values and the rule that was rejected (no program was in use yet).
    expect(machine.disagreements).toEqual({
      by_field: { title: 1 },
      recent: [
        {
          url: pages[5].url,
          field: 'title',
          role: 'verification',
          program_id: null,
          rule_id: title[0].programId,
          program: 'Gullwing Books',
          model: book(6).title,
        },
      ],
    });
  });

  it('counts disagreements per field on checks and keeps the latest values, cut to a bounded size', async () => {
    const long = `${'A very long publisher name '.repeat(20)}`.trim();
    let wrong = new Set<number>();
    const { model } = perfectModel((n, out) =>
      wrong.has(n) ? { ...out, publisher: long, authors: Array.from({ length: 12 }, (_, i) => `Writer ${i}`) } : out,
    );
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

  it('keeps the templates of one machine apart by port, and pages whose URL does not parse apart from every host', async () => {
    const { model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    await session.extract('http://shop.fixture.test:8080/books/book-1', productPage(book(1)));
    await session.extract('http://SHOP.fixture.test:8080/books/book-2', productPage(book(2)));
    await session.extract('http://shop.fixture.test:8081/books/book-3', productPage(book(3)));
    await session.extract('not a url/books/book-4', productPage(book(4)));
    const hosts = (await session.templates()).map((t) => t.host).sort();
    expect(hosts).toEqual(['', 'shop.fixture.test:8080', 'shop.fixture.test:8081']);
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
    const session = new LearnedSession(schema, async (request) => ({
      ...(await model({ ...request, fields: fields.map((f) => f.name) })),
      offer: { price: 1 },
    }));
    expect(session.learnable).toBe(false);
    expect(session.plan.unsupported).toEqual([{ field: 'offer', reason: 'type object' }]);
    const results = await crawl(session, range(1, 15));
    expect(results.every((r) => r.method === 'model' && r.role === 'unlearnable' && r.call === 'full')).toBe(true);
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
    const machine = await session.machine('tpl_stored');
    // Every field's bogus rule is rejected on the first page, and the fields learn from the pages seen.
    expect(machine.events.filter((e) => e.kind === 'rejected').map((e) => [e.field, e.programId])).toEqual(
      bogus.rules.map((r) => [r.field, ruleKey(r)]),
    );
    expect(results.every((r) => r.method === 'model')).toBe(true);
    expect(machine.program).toBeUndefined();
  });

  it('records nothing when the model call fails: the page fails and the template is as it was', async () => {
    const { model } = perfectModel();
    let failing = false;
    const session = new LearnedSession(BOOK_SCHEMA, async (request) => {
      if (failing) throw new Error('model down');
      return model(request);
    });
    await crawl(session, range(1, 3));
    const [before] = await session.templates();
    const machine = await session.machine(before.templateId);
    const samples = machine.samples.length;
    failing = true;
    await expect(session.extract(productUrl(book(3)), productPage(book(3)))).rejects.toThrow('model down');
    const [after] = await session.templates();
    expect(after).toEqual(before);
    expect(machine.samples).toHaveLength(samples);
    expect(machine.phase).toBe('learning');
  });
});
