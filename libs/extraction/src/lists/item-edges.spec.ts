import { itemGroups } from './item-blocks';

const counts = (markdown: string) =>
  itemGroups(markdown)
    .map((g) => `${g.kind}:${g.items.length}`)
    .sort();

const NAMES = ['Amber', 'Birch', 'Cedar', 'Dune', 'Ember'].map((word) => `${word} Porch Lantern with Hook`);
// The grid shows a card with its model and price, the list view a line with its description: both open with the name.
const product = (n: number) => `- ${NAMES[n - 1]} Model: ${1000 + n}\n\n  ### ${NAMES[n - 1]}\n\n  $${n}.99`;
const row = (n: number) => `- ${NAMES[n - 1]} a lamp for the porch, ${n} hours of light`;

describe('item groups: a repeated view and odd items at the start (item-edges.ts)', () => {
  it('counts a grid and a list view of the same products once, and leaves out the sort menu before them', () => {
    const menu = ['- Featured', '- Best Sellers', '- Name A-Z', '- Price: Low to High'];
    const markdown = ['# Lanterns', '', ...menu, ...[1, 2, 3, 4, 5].map(product), ...[1, 2, 3, 4, 5].map(row), '', 'Footer'].join('\n');
    expect(counts(markdown)).toEqual(['list:5']);
  });

  it('keeps items that all open alike (each "View profile"), and names repeated one or two at a time', () => {
    const jobs = [1, 2, 3, 4, 5, 6].map((n) => `- View profile\n\n  ### Engineer ${n}\n\n  Remote`);
    expect(counts(['# Jobs', '', ...jobs].join('\n'))).toEqual(['list:6']);
    const events = ['JavaOne', 'AgentCon', 'JavaOne', 'JavaOne', 'PyCon', 'AgentCon'].map(
      (name, n) => `## ${name}\n\nConference, day ${n}`,
    );
    expect(counts(['# Events', '', ...events].join('\n\n'))).toEqual(['sections:6']);
  });

  it('leaves out leading sections whose title is a link when most are plain (a promotion strip before the list)', () => {
    const ads = [1, 2].map((n) => `## [Masterclass ${n}](https://ads.example/${n})\n\n### Training\n\nBook now`);
    const events = [1, 2, 3, 4, 5].map((n) => `## Conference ${n}\n\n### Tech conference in Chicago\n\nMar ${n}`);
    expect(counts(['# Events', ...ads, ...events].join('\n\n'))).toEqual(['sections:5']);
  });

  it('changes nothing in a group whose items share their traits, or where no trait holds more than half of them', () => {
    expect(counts([1, 2, 3, 4].map(row).join('\n'))).toEqual(['list:4']);
    // The same names twice, but not a stretch of three in order: two lists' worth of items, counted.
    expect(counts([1, 2, 3, 1, 2, 4, 5].map(row).join('\n'))).toEqual(['list:7']);
    const mixed = ['- [One](https://a.example/1)', '- Two', '- [Three](https://a.example/3)', '- Four'];
    expect(counts(mixed.join('\n'))).toEqual(['list:4']);
  });
});
