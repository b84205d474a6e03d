import { findFirst, isElement, parseHtml, type Element } from '../dom';
import { isStrayGrab, type ShownBlock } from './stray-grab';

const words = (n: number) => Array.from({ length: n }, (_, i) => `word${i}`).join(' ');

function blocks(html: string, grabId: string): [ShownBlock, ShownBlock] {
  const doc = parseHtml(html);
  const body = findFirst(doc, 'body')!;
  const byId = (id: string) => {
    let found: Element | undefined;
    const visit = (el: Element) => {
      if (el.attribs.id === id) found = el;
      for (const child of el.children) if (isElement(child)) visit(child);
    };
    visit(body);
    return found!;
  };
  const grab = byId(grabId);
  const main = findFirst(doc, 'main') ?? body;
  return [
    { roots: [grab], removed: new Set(), length: grab.children.length === 0 ? 0 : 400 },
    { roots: [main], removed: new Set(), length: 600 },
  ];
}

describe('stray grab: a declared product’s short grab without the item’s name or a price', () => {
  it('is a side block when the region shows the <h1>', () => {
    const html = `<body><div id="dialog"><p>Add items to your cart? ${words(40)}</p></div>
      <main><h1>Laptop 16</h1><p>${words(60)}</p></main></body>`;
    expect(isStrayGrab(...blocks(html, 'dialog'), () => false)).toBe(true);
  });

  it('is the content when it shows the <h1>, a price, or is long', () => {
    const titled = `<body><div id="g"><h1>Laptop 16</h1><p>${words(40)}</p></div><main><h1>Laptop 16</h1></main></body>`;
    expect(isStrayGrab(...blocks(titled, 'g'), () => false)).toBe(false);
    const priced = `<body><div id="g"><p>Only $999.00 ${words(40)}</p></div><main><h1>Laptop 16</h1></main></body>`;
    expect(isStrayGrab(...blocks(priced, 'g'), () => false)).toBe(false);
    const [grab, region] = blocks(`<body><div id="g"><p>${words(200)}</p></div><main><h1>Laptop 16</h1></main></body>`, 'g');
    expect(isStrayGrab({ ...grab, length: 1500 }, region, () => false)).toBe(false);
  });

  it('stays when it is inside the main region (a block of the page)', () => {
    const html = `<body><main><h1>Laptop 16</h1><div id="g"><p>${words(40)}</p></div><p>${words(60)}</p></main></body>`;
    expect(isStrayGrab(...blocks(html, 'g'), () => false)).toBe(false);
  });

  it('stays when the region shows no <h1> (nothing names the item) or its <h1> is left out', () => {
    const html = `<body><div id="g"><p>${words(40)}</p></div><main><h2>Laptop 16</h2><p>${words(60)}</p></main></body>`;
    expect(isStrayGrab(...blocks(html, 'g'), () => false)).toBe(false);
    const hidden = `<body><div id="g"><p>${words(40)}</p></div><main><h1 id="h">Laptop 16</h1><p>${words(60)}</p></main></body>`;
    expect(isStrayGrab(...blocks(hidden, 'g'), (el) => el.attribs.id === 'h')).toBe(false);
  });
});
