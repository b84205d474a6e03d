import { itemGroups, type ItemGroup } from './item-blocks';
import { chunkContent, planChunks, type ChunkBudget } from './list-chunks';

const ROWS = Array.from({ length: 120 }, (_, i) => `| Item ${i + 1} | ${i} |`).join('\n');
const MARKDOWN = `# Catalogue\n\nIntro text.\n\n| Name | N |\n|---|---|\n${ROWS}\n\nTotal: 120.`;
const TABLE = itemGroups(MARKDOWN).find((g) => g.kind === 'table') as ItemGroup;
const ROOMY: ChunkBudget = { outputTokens: 100_000, contentTokens: 100_000, itemsPerCall: 50 };

describe('planChunks', () => {
  it('splits by items per call into even runs that cover every item once, in order', () => {
    const ranges = planChunks(MARKDOWN, TABLE, ROOMY);
    expect(ranges).toEqual([
      { from: 0, to: 40 },
      { from: 40, to: 80 },
      { from: 80, to: 120 },
    ]);
  });

  it('is one chunk when everything fits', () => {
    expect(planChunks(MARKDOWN, TABLE, { ...ROOMY, itemsPerCall: 500 })).toEqual([{ from: 0, to: 120 }]);
  });

  it("splits by the model's output budget and by its context", () => {
    const itemTokens = (TABLE.items[119].end - TABLE.items[0].start) / 4;
    // Half the output budget is for items: a budget of the items' tokens needs two answers.
    expect(planChunks(MARKDOWN, TABLE, { ...ROOMY, itemsPerCall: 500, outputTokens: itemTokens })).toHaveLength(2);
    expect(planChunks(MARKDOWN, TABLE, { ...ROOMY, itemsPerCall: 500, contentTokens: Math.ceil(itemTokens / 2) })).toHaveLength(3);
  });

  it('never makes more chunks than items', () => {
    expect(planChunks(MARKDOWN, TABLE, { outputTokens: 1, contentTokens: 1, itemsPerCall: 1 })).toHaveLength(120);
  });
});

describe('chunkContent', () => {
  it('gives the head with the first chunk, the header with every other, the tail with the last', () => {
    const first = chunkContent(MARKDOWN, TABLE, { from: 0, to: 2 });
    expect(first).toBe('# Catalogue\n\nIntro text.\n\n| Name | N |\n|---|---|\n| Item 1 | 0 |\n| Item 2 | 1 |');
    const middle = chunkContent(MARKDOWN, TABLE, { from: 2, to: 4 });
    expect(middle).toBe('| Name | N |\n|---|---|\n| Item 3 | 2 |\n| Item 4 | 3 |');
    const last = chunkContent(MARKDOWN, TABLE, { from: 118, to: 120 });
    expect(last).toBe('| Name | N |\n|---|---|\n| Item 119 | 118 |\n| Item 120 | 119 |\n\nTotal: 120.');
  });
});
