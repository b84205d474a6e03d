import { findFirst, parseHtml, type Element } from '../dom';
import { screenReaderText } from './screen-reader-text';
import { textCensus } from './text-census';

const out = (html: string, keepId?: string): string[] => {
  const body = findFirst(parseHtml(html), 'body')!;
  const counts = textCensus(body, () => false);
  const keep = new Set<Element>();
  if (keepId) {
    const find = (el: Element): void => {
      if (el.attribs.id === keepId) keep.add(el);
      for (const child of el.children) if ('name' in child) find(child as Element);
    };
    find(body);
  }
  return [...screenReaderText([body], counts, () => false, keep)].map((el) => el.attribs.id ?? el.name);
};

describe('screenReaderText: text drawn for screen readers only', () => {
  it('leaves out short screen-reader labels and hidden region headings', () => {
    const html =
      `<body><p>Read <a href="/x">the guide<span id="new" class="sr-only">Opens in a new window</span></a>.</p>` +
      `<h2 id="sort" class="visually-hidden">Sort and Filter</h2><p>Items</p></body>`;
    expect(out(html)).toEqual(['new', 'sort']);
  });

  it('keeps a link name, a table tick, a figure, a long description and the page title', () => {
    const html =
      `<body><a href="/p"><img src="p.jpg"><span id="name" class="sr-only">Trail shoe</span></a>` +
      `<table><tr><td><span class="sr-only">Yes</span></td></tr></table>` +
      `<span id="price" class="sr-only">Original price was: $99.00</span>` +
      `<div class="sr-only">Talk with your therapist over the phone at a scheduled time that suits you</div>` +
      `<h1 id="title" class="sr-only">Shoes</h1></body>`;
    expect(out(html, 'title')).toEqual([]);
  });
});
