import { findFirst, parseHtml, type Element } from '../dom';
import { textCensus, type CensusLists } from '../structure/text-census';
import { grabArticle } from './grabber';
import type { GrabFlags } from './types';

const FLAGS: GrabFlags[] = [
  { stripUnlikely: true, weightClasses: true, cleanConditionally: true },
  { stripUnlikely: false, weightClasses: false, cleanConditionally: false },
];
const prose = (n: number) => Array.from({ length: n }, (_, i) => `Sentence ${i}, with a comma and some words.`).join(' ');

describe('grabArticle with the body’s census: the texts read from its list, not measured again', () => {
  it('grabs what it grabs measuring every text itself', () => {
    const html = `<body><header class="site-header"><a href="/">Home</a> <a href="/x">X</a></header>
      <div class="sidebar"><p>${prose(3)}</p></div>
      <article><h2>Title</h2><p>${prose(12)}</p><div class="share">Share</div><ul><li><a href="/a">a</a></li><li><a href="/b">b</a></li></ul>
      <p>${prose(8)}</p><script>var x = 1, y = 2;</script></article><footer>Footer, text</footer></body>`;
    const body = findFirst(parseHtml(html), 'body')!;
    const isSkipped = (el: Element) => el.name === 'script';
    const texts: CensusLists = { lengths: [], commas: [], mains: [] };
    const counts = textCensus(body, isSkipped, texts);
    for (const flags of FLAGS) {
      const measured = grabArticle(body, flags, isSkipped);
      const read = grabArticle(body, flags, isSkipped, { counts, texts });
      expect(read.length).toBe(measured.length);
      expect(read.roots).toEqual(measured.roots);
      expect([...read.removed]).toEqual([...measured.removed]);
    }
  });
});
