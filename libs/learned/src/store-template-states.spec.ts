import { SqliteDocumentStore } from '@app/storage';
import { LearnedSession, type LearnedResult } from './session';
import { StoreTemplateStates, learnedTemplates, schemaKey, type LearnedTemplateRecord } from './store-template-states';
import { LearnedTemplatesReader } from './learned-templates-view';
import { EXTRACTS_CONSUMER, consumerSession, crawlConsumer, crawlSession } from './sessions';
import type { ModelRequest } from './session';
import type { Collection } from '@app/storage';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../test/fixtures/learned-shop';
import { disagreeingFields, planFields } from './values';
import { ruleKey } from './field-state';

const fields = planFields(BOOK_SCHEMA).fields;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('StoreTemplateStates (SQLite document store)', () => {
  let store: SqliteDocumentStore;
  let collection: Collection<LearnedTemplateRecord>;
  let modelCalls: number;

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    collection = await learnedTemplates(store);
    modelCalls = 0;
  });
  afterEach(async () => store.close());

  const model = async (request: ModelRequest) => {
    modelCalls++;
    const answer = truth(book(Number(/book-(\d+)$/.exec(request.url)![1])));
    return Object.fromEntries(request.fields.map((f) => [f, answer[f]]));
  };
  const session = (crawlId: string, userId = 'usr_1') => crawlSession(collection, { userId, schema: BOOK_SCHEMA, crawlId }, model);
  const crawl = async (s: LearnedSession, numbers: number[]) => {
    const out: Array<LearnedResult & { n: number }> = [];
    for (const n of numbers) out.push({ n, ...(await s.extract(productUrl(book(n)), productPage(book(n)))) });
    return out;
  };

  it('keeps the whole life of a template in the store: learning, verification, program pages and spot checks', async () => {
    const results = await crawl(session('crawl_1'), range(1, 60));
    expect(results.filter((r) => r.role === 'learning')).toHaveLength(3);
    expect(results.filter((r) => r.role === 'verification')).toHaveLength(5);
    expect(results.filter((r) => r.role === 'spot-check')).toHaveLength(2);
    expect(results.filter((r) => r.method === 'selectors')).toHaveLength(49);
    for (const r of results) expect(disagreeingFields(fields, r.data, truth(book(r.n)))).toEqual([]);
    const [view] = await new LearnedTemplatesReader(collection).list('usr_1');
    expect(view).toMatchObject({
      host: 'shop.fixture.test',
      phase: 'active',
      pages: 59,
      model_calls: 10,
      fields: fields.map((f) => f.name),
      retired: [],
      checks: { total: 2, disagreeing: 0, by_field: {} },
      disagreements: { by_field: {}, recent: [] },
    });
    expect(view.program!.id).toBe(results.at(-1)!.programId);
    expect(view.id).toMatch(/^lt_[0-9a-f]{24}$/);
    // An active template keeps no page HTML.
    const doc = await collection.findOne({ _id: view.id });
    expect(doc!.state.samples).toEqual([]);
  });

  it('lets two sessions (two page workers, four pages in flight each) share a template without losing an outcome', async () => {
    const workers = [session('crawl_1'), session('crawl_1')];
    const queue = range(1, 121);
    const results = new Map<number, LearnedResult>();
    const lane = async (worker: LearnedSession) => {
      for (let n = queue.shift(); n !== undefined; n = queue.shift())
        results.set(n, await worker.extract(productUrl(book(n)), productPage(book(n))));
    };
    await Promise.all(workers.flatMap((w) => [lane(w), lane(w), lane(w), lane(w)]));
    const views = await new LearnedTemplatesReader(collection).list('usr_1');
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ pages: 120, model_calls: modelCalls, phase: 'active' });
    expect([...results.values()].filter((r) => r.modelCalls === 1)).toHaveLength(modelCalls);
    for (const [n, r] of results) expect(disagreeingFields(fields, r.data, truth(book(n)))).toEqual([]);
    expect([...results.values()].filter((r) => r.method === 'selectors').length).toBeGreaterThan(80);
  });

  it('gives pages in flight on two workers their places in the stored count: one spot check in 25, the others by the program', async () => {
    const first = session('crawl_1');
    // 3 learning + 5 verification + 24 program pages: the 25th active page is a spot check.
    await crawl(first, range(1, 33));
    const callsBefore = modelCalls;
    let atModel = 0;
    let done = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const release = () => {
      if (atModel + done === 6) open();
    };
    const gated = (crawlId: string) =>
      new LearnedSession(
        BOOK_SCHEMA,
        async (page) => {
          atModel++;
          release();
          await gate; // answers once every page in flight has planned
          return model(page);
        },
        {},
        (f, config) => new StoreTemplateStates(collection, { userId: 'usr_1', schemaKey: schemaKey(BOOK_SCHEMA) }, f, config),
        { consumer: crawlConsumer(crawlId) },
      );
    const workers = [gated('crawl_1'), gated('crawl_1')];
    const batch = await Promise.all(
      range(33, 39).map(async (n, i) => {
        const result = await workers[i % 2].extract(productUrl(book(n)), productPage(book(n)));
        done++;
        release();
        return result;
      }),
    );
    expect(batch.map((r) => r.role).sort()).toEqual([...Array(5).fill('program'), 'spot-check']);
    expect(modelCalls - callsBefore).toBe(1);
    // Counted once: the next spot check is the 50th active page (page 58).
    const after = await crawl(first, range(39, 70));
    expect(after.filter((r) => r.role === 'spot-check').map((r) => r.n)).toEqual([58]);
    const [view] = await new LearnedTemplatesReader(collection).list('usr_1');
    expect(view).toMatchObject({ pages: 69, model_calls: 3 + 5 + 2, checks: { total: 2, disagreeing: 0 } });
  });

  it('has a later crawl re-verify the stored rules for itself before it extracts with them, then use them', async () => {
    await crawl(session('crawl_1'), range(1, 20));
    modelCalls = 0;
    const results = await crawl(session('crawl_2'), range(100, 110));
    expect(results.map((r) => r.role)).toEqual([...Array(5).fill('reverification'), ...Array(5).fill('program')]);
    expect(results.slice(0, 5).every((r) => r.call === 'partial')).toBe(true); // read from excerpts
    expect(modelCalls).toBe(5);
    // The first crawl was not set back meanwhile.
    expect((await crawl(session('crawl_1'), [300]))[0].role).toBe('program');
  });

  it("has extracts re-verify a crawl's program on their own pages without setting it back for the crawl or marking the session", async () => {
    await crawl(session('crawl_1'), range(1, 20));
    modelCalls = 0;
    const extracts = consumerSession(collection, { userId: 'usr_1', schema: BOOK_SCHEMA, consumer: EXTRACTS_CONSUMER }, model);
    // One extract at a time, each in a session of its own (as extract jobs are).
    const results: LearnedResult[] = [];
    for (const n of range(100, 107)) {
      const single = consumerSession(collection, { userId: 'usr_1', schema: BOOK_SCHEMA, consumer: EXTRACTS_CONSUMER }, model);
      results.push(await single.extract(productUrl(book(n)), productPage(book(n))));
    }
    expect(results.map((r) => r.role)).toEqual([...Array(5).fill('reverification'), 'program', 'program']);
    expect(results[6]).toMatchObject({ method: 'selectors', modelCalls: 0 });
    expect(modelCalls).toBe(5);
    const [doc] = await collection.find({ kind: 'template' });
    expect(doc.state.phase).toBe('active');
    expect(doc.state.trust!.extracts).toEqual(
      Object.fromEntries(fields.map((f) => [f.name, { rule: ruleKey(doc.state.fields![f.name].rule), agreeing: 5 }])),
    );
    // The crawl that learned it goes on with the program; a new crawl still re-verifies it for itself.
    expect((await crawl(session('crawl_1'), [300]))[0].role).toBe('program');
    expect((await crawl(session('crawl_2'), [301]))[0].role).toBe('reverification');
    // The extracts' trust is theirs: untouched by the new crawl's re-verification.
    await crawl(session('crawl_2'), range(302, 306));
    expect((await extracts.extract(productUrl(book(400)), productPage(book(400)))).role).toBe('program');
  });

  it('shows per-field disagreements of a stored template, and none for a state stored before they were counted', async () => {
    const wrongOn = new Set([33]);
    const answer = async (request: ModelRequest) => {
      const n = Number(/book-(\d+)$/.exec(request.url)![1]);
      const out = wrongOn.has(n) ? { ...truth(book(n)), publisher: 'Somebody Else' } : truth(book(n));
      return Object.fromEntries(request.fields.map((f) => [f, out[f]]));
    };
    const s = crawlSession(collection, { userId: 'usr_1', schema: BOOK_SCHEMA, crawlId: 'c' }, answer);
    // 3 learning and 5 verification pages, then page 33 is the first spot check (the 25th active page).
    await crawl(s, range(1, 40));
    const reader = new LearnedTemplatesReader(collection);
    const [view] = await reader.list('usr_1');
    // The spot check's disagreement starts the crawl's count for the publisher again: pages 34-38 re-verify it.
    expect(view.checks).toEqual({ total: 6, disagreeing: 1, by_field: { publisher: 1 } });
    expect(view.disagreements.by_field).toEqual({ publisher: 1 });
    expect(view.disagreements.recent).toEqual([
      {
        url: productUrl(book(33)),
        field: 'publisher',
        role: 'spot-check',
        program_id: view.program!.id,
        rule_id: view.field_states.find((f) => f.field === 'publisher')!.rule_id,
        program: book(33).publisher,
        model: 'Somebody Else',
      },
    ]);
    const doc = (await collection.findOne({ _id: view.id }))!;
    const legacy = { ...doc.state, active: { ...doc.state.active, byField: undefined }, disagreements: undefined };
    await collection.findOneAndUpdate({ _id: view.id }, { $set: { state: legacy } });
    expect(await reader.get('usr_1', view.id)).toMatchObject({
      checks: { total: 6, disagreeing: 1, by_field: {} },
      disagreements: { by_field: {}, recent: [] },
    });
  });

  it('keeps users and schemas apart, and lists, shows and deletes templates', async () => {
    await crawl(session('crawl_1'), range(1, 12));
    await crawl(session('crawl_x', 'usr_2'), range(1, 4));
    const reader = new LearnedTemplatesReader(collection);
    const [mine] = await reader.list('usr_1');
    expect(await reader.list('usr_1', 'SHOP.fixture.test')).toHaveLength(1);
    expect(await reader.list('usr_1', 'other.test')).toEqual([]);
    expect(await reader.get('usr_2', mine.id)).toBeNull();
    expect(await reader.get('usr_1', mine.id)).toEqual(mine);
    expect((await reader.list('usr_2'))[0]).toMatchObject({ phase: 'verifying', pages: 3 });
    expect(await reader.delete('usr_2', mine.id)).toBe(false);
    expect(await reader.delete('usr_1', mine.id)).toBe(true);
    expect(await reader.get('usr_1', mine.id)).toBeNull();
    // The next page of the template starts a new learning round, which is stored and goes on to a program again.
    const again = await crawl(session('crawl_3'), range(50, 62));
    expect(again[0]).toMatchObject({ role: 'learning', method: 'model' });
    expect(again.map((r) => r.role)).toEqual([...Array(3).fill('learning'), ...Array(5).fill('verification'), ...Array(4).fill('program')]);
    const relearned = await reader.list('usr_1');
    expect(relearned).toEqual([expect.objectContaining({ host: mine.host, phase: 'active', pages: 12 })]);
  });
});
