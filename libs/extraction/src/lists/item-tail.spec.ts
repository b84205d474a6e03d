import { REAL_SCHEMA } from '../../../../test/fixtures/wcxb-lists';
import { ARTICLES_4609, CATALOGUE_4533, JOBS_4354, MOWERS_4247 } from '../../../../test/fixtures/wcxb-tails';
import { itemGroups, type ItemSpan } from './item-blocks';
import { signatureOf, withoutOddTail } from './item-tail';
import { pageLists } from './list-paths';

/** The items of the list a page's answer is counted by (item-counts-corpus.spec.ts), as their first lines. */
function counted(markdown: string): string[] {
  const [list] = pageLists(markdown, REAL_SCHEMA);
  return (list.group?.items ?? []).map((item) => markdown.slice(item.start, item.end).split('\n')[0]);
}

describe('the end of a list: items of another structure after the last item (WCXB pages)', () => {
  it('4247: nine product headings, not the store finder headings of their level after them', () => {
    const items = counted(MOWERS_4247);
    expect(items).toHaveLength(9);
    expect(items.at(-1)).toMatch(/^#### KR237 ### /);
  });

  it('4354: the job cards, not the "Back to all jobs" bullet after them', () => {
    const items = counted(JOBS_4354);
    expect(items).toHaveLength(6);
    expect(items.every((line) => line === '- View Company Profile' || line.startsWith('- ###'))).toBe(true);
  });

  it('4609: the article cards (a caption, then its title), not the Instagram and newsletter headings after them', () => {
    const items = counted(ARTICLES_4609);
    expect(items).toHaveLength(6);
    expect(items.at(-1)).toBe('## 5 Tips for Going Plastic Free');
  });

  it('4533: a list whose items differ among themselves (linked titles and plain ones) keeps its end', () => {
    expect(counted(CATALOGUE_4533)).toHaveLength(11);
  });
});

describe('withoutOddTail', () => {
  const spans = (markdown: string) => itemGroups(markdown).find((g) => g.kind === 'list')!.items;
  const list = (lines: string[]) => `${lines.join('\n')}\n`;

  it('reads the structure, not the tag: a title heading after the bullet or on the next line is one trait', () => {
    const markdown = list(['- View profile', '  ### Engineer', '- ### Designer', '- Back']);
    const [a, b, c] = spans(markdown).map((item) => signatureOf(markdown, 'list', item));
    expect([a, b, c]).toEqual(['heading', 'heading', '']);
  });

  it('keeps a tail longer than three items (another list) and the end of a run of plain items', () => {
    const headed = (n: number) => Array.from({ length: n }, (_, k) => `- [Job ${k}](/jobs/${k})`);
    const plain = (n: number) => Array.from({ length: n }, (_, k) => `- Note ${k}`);
    const four = list([...headed(5), ...plain(4)]);
    expect(withoutOddTail(four, 'list', spans(four))).toHaveLength(9);
    const three = list([...headed(5), ...plain(3)]);
    expect(withoutOddTail(three, 'list', spans(three))).toHaveLength(5);
    const notes = list([...plain(5), '- [More](/more)']);
    expect(withoutOddTail(notes, 'list', spans(notes))).toHaveLength(6);
  });

  it('keeps at least three items, and leaves tables and runs of paragraphs alone', () => {
    const short = list(['- [A](/a)', '- [B](/b)', '- C', '- D']);
    expect(withoutOddTail(short, 'list', spans(short))).toHaveLength(4);
    const rows: ItemSpan[] = [{ start: 0, end: 1 }];
    expect(withoutOddTail('x', 'table', rows)).toBe(rows);
  });
});
