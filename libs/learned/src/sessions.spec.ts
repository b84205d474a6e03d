import { SqliteDocumentStore, type Collection } from '@app/storage';
import { ruleKey } from './field-state';
import { LearnedTemplatesReader } from './learned-templates-view';
import { makeProgram } from './program';
import type { LearnedResult } from './session';
import { EXTRACTS_CONSUMER, consumerSession, crawlConsumer, crawlSession } from './sessions';
import { learnedTemplates, type LearnedTemplateRecord } from './store-template-states';
import type { TemplateSnapshot } from './template-snapshot';
import { perfectModel } from '../../../test/fixtures/learned-model';
import { BOOK_SCHEMA, book, productPage, productUrl, truth } from '../../../test/fixtures/learned-shop';
import { disagreeingFields, planFields } from './values';

const fields = planFields(BOOK_SCHEMA).fields;
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe('crawl and extract consumers over the stored templates (SQLite document store)', () => {
  let store: SqliteDocumentStore;
  let collection: Collection<LearnedTemplateRecord>;
  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    collection = await learnedTemplates(store);
  });
  afterEach(async () => store.close());

  const crawlOf = (crawlId: string, model: ReturnType<typeof perfectModel>['model']) =>
    crawlSession(collection, { userId: 'usr_1', schema: BOOK_SCHEMA, crawlId }, model);
  const pageOf = (n: number) => [productUrl(book(n)), productPage(book(n))] as const;

  it('runs two crawls of one template at once, four pages in flight each, without either sending the other back to verification', async () => {
    const { model } = perfectModel();
    const first = crawlOf('crawl_1', model);
    for (const n of range(1, 12)) await first.extract(...pageOf(n)); // learned, verified, in use
    const second = crawlOf('crawl_2', model);
    const results = new Map<string, Array<LearnedResult & { n: number }>>([
      ['crawl_1', []],
      ['crawl_2', []],
    ]);
    const lanes = (crawlId: string, numbers: number[]) => {
      const queue = [...numbers];
      const session = crawlId === 'crawl_1' ? first : second;
      const lane = async () => {
        for (let n = queue.shift(); n !== undefined; n = queue.shift())
          results.get(crawlId)!.push({ n, ...(await session.extract(...pageOf(n))) });
      };
      return [lane(), lane(), lane(), lane()];
    };
    await Promise.all([...lanes('crawl_1', range(100, 160)), ...lanes('crawl_2', range(500, 560))]);
    const one = results.get('crawl_1')!;
    const two = results.get('crawl_2')!;
    // The first crawl never re-verifies; the second re-verifies (at most its first pages in flight) and then uses the program.
    expect(one.filter((r) => r.role === 'reverification' || r.role === 'verification')).toEqual([]);
    const reverified = two.filter((r) => r.role === 'reverification');
    expect(reverified.length).toBeGreaterThanOrEqual(5);
    expect(reverified.length).toBeLessThanOrEqual(5 + 3);
    expect(two.filter((r) => r.method === 'selectors').length).toBeGreaterThan(40);
    for (const r of [...one, ...two])
      expect({ n: r.n, disagree: disagreeingFields(fields, r.data, truth(book(r.n))) }).toEqual({ n: r.n, disagree: [] });
    const [doc] = await collection.find({ kind: 'template' });
    expect(doc.state.phase).toBe('active');
    expect(Object.keys(doc.state.trust ?? {}).sort()).toEqual([crawlConsumer('crawl_1'), crawlConsumer('crawl_2')]);
  });

  it("has a later crawl re-verify from excerpts (partial calls), while the user's extracts keep their own trust", async () => {
    const { requests, model } = perfectModel();
    for (const n of range(1, 12)) await crawlOf('crawl_1', model).extract(...pageOf(n));
    const extracts = consumerSession(collection, { userId: 'usr_1', schema: BOOK_SCHEMA, consumer: EXTRACTS_CONSUMER }, model);
    for (const n of range(20, 25)) await extracts.extract(...pageOf(n));
    requests.length = 0;
    const later = crawlOf('crawl_2', model);
    const results: LearnedResult[] = [];
    for (const n of range(100, 108)) results.push(await later.extract(...pageOf(n)));
    expect(results.map((r) => r.role)).toEqual([...Array(5).fill('reverification'), 'program', 'program', 'program']);
    expect(requests.map((q) => q.kind)).toEqual(Array(5).fill('partial'));
    expect(requests.every((q) => q.excerpt !== undefined && q.fields.length === fields.length)).toBe(true);
    expect((await extracts.extract(...pageOf(200))).role).toBe('program');
  });

  it('restores a state stored when templates had one program: its fields take its phase and rules; trust kept per program is dropped', async () => {
    const { model } = perfectModel();
    for (const n of range(1, 12)) await crawlOf('crawl_1', model).extract(...pageOf(n));
    const [doc] = await collection.find({ kind: 'template' });
    const program = makeProgram(fields.map((f) => doc.state.fields![f.name].rule!));
    const legacy: TemplateSnapshot = {
      phase: 'active',
      program,
      samples: [],
      last_failures: [],
      verification: { pages: 5, agreeing: 5 },
      active: { pages: 3, programPages: 3, recentChecks: [], checks: 0, disagreeingChecks: 0 },
      always_filled: fields.map((f) => f.name),
      retired: [],
      events: [{ kind: 'accepted', programId: program.id, detail: '5/5 verification pages agree' }],
      trust: { [crawlConsumer('crawl_1')]: { programId: program.id, agreeing: 5 } },
    };
    await collection.findOneAndUpdate({ _id: doc._id }, { $set: { state: legacy } });
    const view = await new LearnedTemplatesReader(collection).get('usr_1', doc._id);
    expect(view!.field_states.map((f) => [f.field, f.phase, f.rule_id])).toEqual(
      fields.map((f) => [f.name, 'active', ruleKey(doc.state.fields![f.name].rule)]),
    );
    expect(view!.retired).toEqual([]);
    // The crawl's trust was per program: it re-verifies the rules (5 pages), then uses them.
    const results: LearnedResult[] = [];
    const again = crawlOf('crawl_1', model);
    for (const n of range(30, 37)) results.push(await again.extract(...pageOf(n)));
    expect(results.map((r) => r.role)).toEqual([...Array(5).fill('reverification'), 'program', 'program']);
    const [restored] = await collection.find({ kind: 'template' });
    expect(restored.state.version).toBe(2);
    expect(restored.state.program!.id).toBe(program.id);
  });

  it('shows each field of a template and the field a retired rule belonged to', async () => {
    const { model } = perfectModel();
    const html = (n: number) => (n >= 20 ? productPage(book(n)).replace('<b>Publisher:</b>', '<b>Imprint:</b>') : productPage(book(n)));
    const crawl = crawlOf('crawl_1', model);
    for (const n of range(1, 23)) await crawl.extract(productUrl(book(n)), html(n)); // retired on page 21, two learning pages since
    const [view] = await new LearnedTemplatesReader(collection).list('usr_1');
    expect(view.phase).toBe('learning'); // the publisher learns again
    expect(view.retired).toEqual([
      {
        program_id: expect.stringMatching(/^prg_/),
        field: 'publisher',
        // The first empty publisher is a guard's check; its disagreement starts the crawl's count for the field again, so the second is a re-verification.
        reason: 'reverification: publisher disagreed (2 of the last 2 checks)',
        pages_extracted: expect.any(Number),
      },
    ]);
    const publisher = view.field_states.find((f) => f.field === 'publisher')!;
    expect(publisher).toMatchObject({ phase: 'learning', rule: null, rule_id: null });
    const title = view.field_states.find((f) => f.field === 'title')!;
    expect(title).toMatchObject({ phase: 'active', always_filled: true, verification: { pages: 5, agreeing: 5 } });
    expect(title.rule_id).toBe(ruleKey(title.rule));
    expect(view.program!.rules.map((r) => r.field)).not.toContain('publisher');
    expect(JSON.stringify(view)).not.toContain('<html');
  });
});
