import { findFirst, parseHtml, walk, type Element } from '../dom';
import { ConditionalCleaner } from './conditional-cleaner';
import type { ElementInfo, GrabFlags } from './types';

const ALL: GrabFlags = { stripUnlikely: true, weightClasses: true, cleanConditionally: true };
const NO_CLEANING: GrabFlags = { stripUnlikely: false, weightClasses: false, cleanConditionally: false };
const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

/** Cleans the <article> of `html` and returns the ids of what was removed, with the kept length. */
function clean(html: string, flags = ALL): { removed: string[]; length: number } {
  const doc = parseHtml(html);
  const root = findFirst(doc, 'article')!;
  // Containers are marked as holding blocks, as the grab's measuring pass would.
  const info = new Map<Element, ElementInfo>();
  walk(root, (el) => {
    const block = el.children.some((c) => 'name' in c && ['p', 'div', 'ul', 'table', 'img'].includes((c as Element).name));
    info.set(el, { text: 1, link: 0, commas: 0, blockDesc: block });
  });
  const removed = new Set<Element>();
  const length = new ConditionalCleaner(
    flags,
    (el) => info.get(el),
    (el) => el.name === 'script',
  ).clean(root, removed);
  return { removed: [...removed].map((el) => el.attribs.id ?? el.name).sort(), length };
}

describe('ConditionalCleaner: readability’s conditional cleaning of the chosen roots', () => {
  it('removes link-heavy blocks and short share bars, keeps prose', () => {
    const { removed } = clean(
      '<article><div id="links"><p><a href="/a">one link</a> <a href="/b">two links</a></p></div>' +
        `<div id="share" class="share-bar"><p>Share this</p></div><div id="prose"><p>${words(60)}</p></div></article>`,
    );
    expect(removed).toEqual(['links', 'share']);
  });

  it('protects code, preformatted text and data tables with everything inside them', () => {
    const { removed } = clean(
      `<article><pre id="pre"><div id="in-pre"><a href="/x">link only</a></div></pre>` +
        `<table id="data"><tr><th>h</th></tr><tr><td><div id="in-table"><a href="/y">link only</a></div></td></tr></table></article>`,
    );
    expect(removed).toEqual([]);
  });

  it('keeps a plain list of images (a gallery) and removes an advertising label', () => {
    const { removed } = clean(
      '<article><ul id="gallery"><li><img src="a.png"></li><li><img src="b.png"></li></ul><div id="ad"><p>Advertisement</p></div></article>',
    );
    expect(removed).toEqual(['ad']);
  });

  it('removes what the caller skips and counts only the kept text', () => {
    const { removed, length } = clean(`<article><p>${words(3)}</p><script>var hidden = 1</script></article>`);
    expect(removed).toEqual(['script']);
    expect(length).toBe(words(3).length);
  });

  it('cleans nothing when the grab neither cleans conditionally nor weighs class names', () => {
    const { removed } = clean('<article><div id="links"><p><a href="/a">one link</a></p></div></article>', NO_CLEANING);
    expect(removed).toEqual([]);
  });

  it('stays bounded on garbage nesting: deep text is counted, nothing judged', () => {
    const depth = 1_000;
    const { length } = clean(`<article>${'<div>'.repeat(depth)}${words(5)}${'</div>'.repeat(depth)}</article>`);
    expect(length).toBe(words(5).length);
  });
});
