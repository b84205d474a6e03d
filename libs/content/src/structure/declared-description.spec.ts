import { findFirst, parseHtml, type Element } from '../dom';
import { declaredDescriptionBlock, declaredProductDescription } from './declared-description';

const words = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `word${i + from}`).join(' ');

function block(html: string, description: string, isSkipped: (el: Element) => boolean = () => false): string | undefined {
  const found = declaredDescriptionBlock(findFirst(parseHtml(html), 'body')!, description, isSkipped);
  return found && (found.attribs.id ?? found.name);
}

describe('declared description: the block showing the description a product page declares', () => {
  it('finds the smallest block that runs from its first words to its last, whatever its names and role', () => {
    const html = `<body><h1>Tee</h1><div role="dialog" id="sheet"><h5>Description</h5>
      <div id="text"><p>${words(25)}</p><ul><li>${words(10, 25)}</li></ul></div></div></body>`;
    expect(block(html, `${words(25)}\n${words(10, 25)}`)).toBe('text');
  });

  it('reads a description given as HTML with entities, and one cut short in a broken word', () => {
    const html = `<body><div><p id="d">Tom &amp; Jerry ${words(30)}</p></div></body>`;
    expect(block(html, `<p>Tom &amp; Jerry ${words(29)} wor</p>`)).toBe('d');
  });

  it('finds nothing for a short description, one the page does not show, or a block holding much more', () => {
    expect(block(`<body><p id="p">${words(10)}</p></body>`, words(10))).toBeUndefined();
    expect(block(`<body><p id="p">${words(30)}</p></body>`, words(30, 100))).toBeUndefined();
    expect(
      block(`<body><div id="d"><p>${words(15)}</p><p>${words(15, 15)}</p><p>${words(200, 100)}</p></div></body>`, words(30)),
    ).toBeUndefined();
  });

  it('does not read skipped blocks nor the structured data itself', () => {
    const html = `<body><script type="application/ld+json">{"description": "${words(30)}"}</script><p id="hidden">${words(30)}</p></body>`;
    expect(block(html, words(30), (el) => el.attribs.id === 'hidden')).toBeUndefined();
  });

  it('reads the description of a product in JSON-LD, at the top level, in @graph or as mainEntity', () => {
    expect(declaredProductDescription([{ '@type': 'Product', description: 'A tee' }])).toBe('A tee');
    expect(
      declaredProductDescription([
        {
          '@graph': [
            { '@type': 'WebPage', description: 'x' },
            { '@type': ['Product'], description: 'B' },
          ],
        },
      ]),
    ).toBe('B');
    expect(
      declaredProductDescription([{ '@type': 'ItemPage', mainEntity: { '@type': 'http://schema.org/ProductGroup', description: 'C' } }]),
    ).toBe('C');
    expect(declaredProductDescription([{ '@type': 'Article', description: 'D' }])).toBeUndefined();
  });
});
