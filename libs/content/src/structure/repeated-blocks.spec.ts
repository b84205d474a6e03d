import { findFirst, parseHtml, type Element } from '../dom';
import { findRepeatedBlocks, groupOf, namesAKind, repeatedBlocks, signatureOf } from './repeated-blocks';
import { textCensus } from './text-census';

const page = (html: string) => {
  const doc = parseHtml(html);
  const body = findFirst(doc, 'body')!;
  return { doc, body, counts: textCensus(body, () => false) };
};
const byId = (root: Element, id: string): Element => {
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    if (el.attribs?.id === id) return el;
    for (const c of el.children) if ('attribs' in c) stack.push(c);
  }
  throw new Error(id);
};

describe('repeated blocks: runs of siblings of one kind', () => {
  it('names a kind by tag and class names, digits and state names left out', () => {
    const { doc } = page('<body><li class="card card-3 active">a</li><li class="card-7 card">b</li></body>');
    const [first, second] = [findFirst(doc, 'li')!, findFirst(doc, 'li')!.next as Element];
    expect(signatureOf(first)).toBe('li.card.card-');
    expect(signatureOf(second)).toBe(signatureOf(first));
  });

  it('groups the children of one kind that hold text, largest group first, from the minimum size on', () => {
    const { body, counts } = page(
      '<body><div class="post">first post</div><div class="post">second post</div><div class="post">third post</div>' +
        '<div class="ad">x</div><div class="ad">y</div><div class="post"></div></body>',
    );
    const groups = repeatedBlocks(body, counts);
    expect(groups.map((g) => [g.signature, g.items.length])).toEqual([['div.post', 3]]);
    expect(repeatedBlocks(body, counts, { minItems: 2 }).map((g) => g.signature)).toEqual(['div.post', 'div.ad']);
  });

  it('finds the group an element belongs to, and every run that is what its parent is about', () => {
    const { body, counts } = page(
      '<body><nav><a href="/">Home</a></nav><ol id="thread"><li class="msg" id="m1">Question asked here</li>' +
        '<li class="msg">An answer</li><li class="msg">Another answer</li></ol>' +
        '<ul id="icons"><li>a</li><li>b</li><li>c</li></ul><p>A long paragraph beside the icons, far longer than they are.</p></body>',
    );
    expect(groupOf(byId(body, 'm1'), counts)?.items).toHaveLength(3);
    expect(findRepeatedBlocks(body, counts).map((g) => g.parent.attribs.id)).toEqual(['thread', 'icons']);
    expect(findRepeatedBlocks(body, counts, { minItemText: 2 }).map((g) => g.parent.attribs.id)).toEqual(['thread']);
  });

  it('tells items of one kind from blocks alike only in layout', () => {
    expect(namesAKind({ signature: 'div.post' })).toBe(true);
    expect(namesAKind({ signature: 'li.' })).toBe(true);
    expect(namesAKind({ signature: 'article.' })).toBe(true);
    expect(namesAKind({ signature: 'div.' })).toBe(false);
    expect(namesAKind({ signature: 'div.row-fluid' })).toBe(false);
    expect(namesAKind({ signature: 'div.col-md-.col-sm-' })).toBe(false);
  });
});
