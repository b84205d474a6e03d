import { LearnedSession, type GroundingCheck, type LearnedResult } from './session';
import { BOOK_SCHEMA, book, productPage, productUrl } from '../../../test/fixtures/learned-shop';
import { bookNumber, perfectModel } from '../../../test/fixtures/learned-model';

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function crawl(session: LearnedSession, numbers: number[], grounded: (n: number) => GroundingCheck) {
  const results: Array<LearnedResult & { n: number }> = [];
  for (const n of numbers)
    results.push({ n, ...(await session.extract(productUrl(book(n)), productPage(book(n)), { grounded: grounded(n) })) });
  return results;
}

/** From page 30 on, the publisher the rule reads is "not on the page" (as when a rule reads a hidden, stale element). */
const publisherGoneFrom30 =
  (n: number): GroundingCheck =>
  (field) =>
    field.name === 'publisher' && n >= 30 ? false : true;

describe('LearnedSession: ungrounded values of a rule are a drift signal', () => {
  it('names the rule behind every value the program filled', async () => {
    const { model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 20), () => () => true);
    const last = results.at(-1)!;
    expect(last.method).toBe('selectors');
    expect(Object.keys(last.rules!).sort()).toEqual(Object.keys(BOOK_SCHEMA.properties).sort());
    expect(last.rules!.publisher).toMatchObject({ field: 'publisher', selector: expect.any(String) });
    expect(results[0].rules).toBeUndefined(); // a learning page: the model filled every field
  });

  it('asks the model for the field instead, and retires the rule when the model reads something else', async () => {
    // The model reads another publisher from page 30 on: the rule's value is wrong there.
    const { requests, model } = perfectModel((n, answer) => (n >= 30 ? { ...answer, publisher: 'Another House' } : answer));
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 40), publisherGoneFrom30);
    const page30 = results.find((r) => r.n === 30)!;
    expect(page30).toMatchObject({ method: 'mixed', modelFields: ['publisher'], role: 'ungrounded', data: { publisher: 'Another House' } });
    const [summary] = await session.templates();
    expect(summary.retired.map((r) => [r.field, r.reason])).toEqual([
      ['publisher', 'ungrounded: publisher disagreed (2 of the last 2 checks)'],
    ]);
    // Never an ungrounded value handed out: every page from 30 on has the model's publisher.
    for (const r of results.filter((x) => x.n >= 30)) expect([r.n, r.data.publisher]).toEqual([r.n, 'Another House']);
    expect(requests.filter((q) => bookNumber(q.url) === 30)).toMatchObject([{ kind: 'partial', fields: ['publisher'] }]);
  });

  it('stops asking once the model confirms an ungrounded value (a form grounding does not know)', async () => {
    const { requests, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    const results = await crawl(session, range(1, 40), publisherGoneFrom30);
    expect(results.find((r) => r.n === 30)).toMatchObject({ method: 'mixed', role: 'ungrounded' });
    const machine = await session.machine((await session.templates())[0].templateId);
    expect(machine.field('publisher').ungrounded_confirmed).toBe(true);
    expect(requests.filter((q) => bookNumber(q.url) > 30 && q.kind === 'partial')).toEqual([]);
    // Spot checks aside (full calls), the program fills every field again.
    expect(results.filter((r) => r.n > 30 && r.method !== 'selectors').map((r) => r.role)).toEqual(
      results.filter((r) => r.n > 30 && r.method !== 'selectors').map(() => 'spot-check'),
    );
    expect((await session.templates())[0].retired).toEqual([]);
  });

  it('has no effect without a check, or when the check has no verdict', async () => {
    const { requests, model } = perfectModel();
    const session = new LearnedSession(BOOK_SCHEMA, model);
    await crawl(session, range(1, 40), () => () => null);
    expect(requests.filter((q) => q.kind === 'partial')).toEqual([]);
  });
});
