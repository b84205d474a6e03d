import type { ModelTarget } from '@app/llm';
import type { ExtractOutput } from '../extraction.service';
import type { ChunkBudget } from './list-chunks';
import { extractLists, type ChunkPart } from './list-extraction';
import { incompleteWarnings, mergeChunks } from './list-merge';
import { pageLists } from './list-paths';

const SCHEMA = {
  type: 'object' as const,
  properties: {
    title: { type: ['string', 'null'] as Array<'string' | 'null'> },
    total: { type: ['number', 'null'] as Array<'number' | 'null'> },
    items: {
      type: 'array' as const,
      items: { type: 'object' as const, properties: { name: { type: 'string' as const }, n: { type: 'number' as const } } },
    },
  },
};

function page(count: number): string {
  const rows = Array.from({ length: count }, (_, i) => `| Item ${i + 1} | ${i + 1} |`).join('\n');
  return `# Catalogue\n\n| Name | N |\n|---|---|\n${rows}\n\nTotal: ${count}.`;
}

function output(data: unknown, content: string): ExtractOutput {
  return {
    data,
    target: { provider: 'openai', model: 'm' } as ModelTarget,
    contentTruncated: false,
    content,
    nulled: [],
    warnings: [],
    attempts: [],
    usage: { inputTokens: 10, outputTokens: 5 },
    llmCostUsd: 0.001,
    costUsd: 0.001,
    isByok: false,
  };
}

/** A model that reads the rows it is given, answering at most `cap` of them (and the title and total it sees). */
function model(cap: number, skip: (n: number) => boolean = () => false, repeatAtSeam = false) {
  const calls: Array<ChunkPart | null> = [];
  const call = async (content: string, part: ChunkPart | null) => {
    calls.push(part);
    const rows = [...content.matchAll(/^\| Item (\d+) \| (\d+) \|$/gm)].map((m) => ({ name: `Item ${m[1]}`, n: Number(m[2]) }));
    let items = rows.filter((r) => !skip(r.n)).slice(0, cap);
    if (repeatAtSeam && part && part.first > 1) items = [{ name: `Item ${part.first - 1}`, n: part.first - 1 }, ...items].slice(0, cap);
    const title = /^# (.+)$/m.exec(content)?.[1] ?? null;
    const total = /Total: (\d+)/.exec(content)?.[1];
    return output({ title, total: total ? Number(total) : null, items }, content);
  };
  return { calls, call };
}

const BUDGET: ChunkBudget = { outputTokens: 100_000, contentTokens: 100_000, itemsPerCall: 50 };

async function run(count: number, m: ReturnType<typeof model>, budget = BUDGET) {
  const markdown = page(count);
  return extractLists({ markdown, lists: pageLists(markdown, SCHEMA), budget, call: m.call });
}

describe('extractLists', () => {
  it('asks once for a list that fits one answer, with the whole page and no part', async () => {
    const m = model(1000);
    const result = await run(30, m);
    expect(m.calls).toEqual([null]);
    expect(result.items).toEqual([{ path: 'items', expected: 30, extracted: 30, chunks: 1, complete: true }]);
  });

  it('extracts a list of 200 in four chunks of 50, every item once and in order, other fields taken once', async () => {
    const m = model(50);
    const result = await run(200, m);
    expect(m.calls).toHaveLength(4);
    expect(m.calls[1]).toEqual({ path: 'items', first: 51, last: 100, total: 200 });
    const data = result.data as { title: string; total: number; items: Array<{ n: number }> };
    expect(data.items.map((i) => i.n)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(data.title).toBe('Catalogue');
    expect(data.total).toBe(200);
    expect(result.items[0]).toEqual({ path: 'items', expected: 200, extracted: 200, chunks: 4, complete: true });
    expect(result.outs).toHaveLength(4);
  });

  it('asks again for the rest of a chunk a model answered short, until every item is in', async () => {
    const m = model(15);
    const result = await run(60, m, { ...BUDGET, itemsPerCall: 30 });
    // Two chunks of 30, each answered 15 at a time.
    expect(m.calls.map((c) => c?.first).sort((a, b) => a! - b!)).toEqual([1, 16, 31, 46]);
    expect(result.items[0]).toMatchObject({ expected: 60, extracted: 60, complete: true, chunks: 4 });
  });

  it('drops an item a chunk repeats from before its seam', async () => {
    const m = model(50, undefined, true);
    const result = await run(120, m);
    expect(((result.data as { items: unknown[] }).items as Array<{ n: number }>).map((i) => i.n)).toEqual(
      Array.from({ length: 120 }, (_, i) => i + 1),
    );
    expect(result.seamDuplicates).toBe(2);
  });

  it('says a list is incomplete when the model leaves items out, and warns list_incomplete', async () => {
    const m = model(50, (n) => n % 10 === 0);
    const result = await run(100, m);
    expect(result.items[0]).toMatchObject({ expected: 100, extracted: 90, complete: false });
    const [warning] = incompleteWarnings(result.items);
    expect(warning).toMatchObject({ code: 'list_incomplete', location: 'body.schema.items' });
    expect(warning.message).toContain('the page lists 100 items and the answer has 90');
  });

  it('asks a model that left items out for the items after the last one it answered, never again for those it did', async () => {
    const m = model(20, (n) => n === 20 || n === 5);
    const result = await run(40, m, { ...BUDGET, itemsPerCall: 40 });
    const items = (result.data as { items: Array<{ n: number }> }).items.map((i) => i.n);
    expect(new Set(items).size).toBe(items.length);
    expect(items).toHaveLength(38);
    // The first answer ends at item 22 (it left out 5 and 20): the next call starts at 23, and gets the rest.
    expect(m.calls.map((c) => c?.first)).toEqual([undefined, 23]);
  });

  it('stops asking when a chunk answers nothing', async () => {
    const m = model(0);
    const result = await run(10, m);
    expect(m.calls).toHaveLength(1);
    expect(result.items[0]).toMatchObject({ expected: 10, extracted: 0, complete: false });
    expect(result.budgetStopped).toBe(false);
  });

  it('stops asking for chunks once the calls cost more than the cap', async () => {
    const m = model(50);
    const markdown = page(200);
    const result = await extractLists({
      markdown,
      lists: pageLists(markdown, SCHEMA),
      budget: BUDGET,
      call: m.call,
      maxCostUsd: 0.0015,
      parallel: 1,
    });
    expect(m.calls).toHaveLength(2);
    expect(result.items[0]).toMatchObject({ expected: 200, extracted: 100, complete: false });
    expect(result.budgetStopped).toBe(true);
    // A page that fits the cap: every chunk asked, and not stopped.
    const whole = await run(200, model(50));
    expect(whole.budgetStopped).toBe(false);
  });

  it('says a cut text is incomplete even without a count', async () => {
    const markdown = 'Just a paragraph.';
    const result = await extractLists({
      markdown,
      lists: pageLists(markdown, SCHEMA),
      budget: BUDGET,
      call: async (content) => ({ ...output({ items: [] }, content), contentTruncated: true }),
    });
    expect(result.items).toEqual([{ path: 'items', expected: null, extracted: 0, chunks: 1, complete: false }]);
    expect(incompleteWarnings(result.items)[0].message).toContain("the page's text was cut");
  });

  it('moves nulled values of the list to their index in the merged list', async () => {
    const markdown = page(100);
    let call = 0;
    const result = await extractLists({
      markdown,
      lists: pageLists(markdown, SCHEMA),
      budget: BUDGET,
      parallel: 1,
      call: async (content) => {
        const out = await model(50).call(content, null);
        return { ...out, nulled: [{ path: ['items', 1, 'n'], value: `call ${call++}` }] };
      },
    });
    expect(result.nulled.map((n) => n.path)).toEqual([
      ['items', 1, 'n'],
      ['items', 51, 'n'],
    ]);
  });
});

describe('mergeChunks', () => {
  it('gathers a second list from every chunk, each item once, and a root list in order', () => {
    const lists = [
      { path: 'a', keys: [], group: null },
      { path: 'b', keys: [], group: null },
    ];
    const merged = mergeChunks(
      [
        { data: { a: [1, 2], b: ['x'], t: null }, from: 0 },
        { data: { a: [2, 3], b: ['x', 'y'], t: 'late' }, from: 2 },
      ],
      'a',
      lists,
    );
    expect(merged.data).toEqual({ a: [1, 2, 3], b: ['x', 'y'], t: 'late' });
    expect(
      mergeChunks(
        [
          { data: [{ k: 1 }], from: 0 },
          { data: [{ k: 2 }], from: 1 },
        ],
        '$',
        [],
      ).data,
    ).toEqual([{ k: 1 }, { k: 2 }]);
  });
});
