import { parseHtml, type Element } from '../dom';
import { isHidden } from '../visibility';
import { collapsedPanels } from './collapsed-panels';

function shown(html: string, tabs = false): string[] {
  return [...collapsedPanels(parseHtml(`<body>${html}</body>`), (el: Element) => isHidden(el), { tabs })].map((el) => el.attribs.id).sort();
}

const answer = 'You can file a claim once the waiting period for the coverage is over.';

describe("collapsed panels: an accordion's folded answers are the page's text", () => {
  it('shows a hidden panel a control with aria-expanded names in aria-controls', () => {
    const html =
      `<h3><button aria-expanded="false" aria-controls="a1">How do claims work?</button></h3><div id="a1" aria-hidden="true"><p>${answer}</p></div>` +
      `<button aria-expanded="false" aria-controls="a2">When?</button><div id="a2" hidden><p>${answer}</p></div>` +
      `<button aria-expanded="false" aria-controls="a3">Why?</button><div id="a3" style="display: none"><p>${answer}</p></div>`;
    expect(shown(html)).toEqual(['a1', 'a2', 'a3']);
  });

  it('shows the wrapper a framework hides around a panel that is not hidden itself, when it holds nothing else', () => {
    const html =
      `<button aria-expanded="false" aria-controls="p1">Description</button>` +
      `<div id="w1" style="overflow:hidden;display:none"><style>.x{}</style><div role="region" id="p1"><p>${answer}</p></div></div>` +
      `<button aria-expanded="false" aria-controls="p2">Specs</button>` +
      `<div id="w2" style="display:none"><p>Other text</p><div id="p2"><p>${answer}</p></div></div>`;
    expect(shown(html)).toEqual(['w1']);
  });

  it('not a hidden block nothing expands, nor a panel of links (a menu a toggle opens), nor a shown panel', () => {
    const links = Array.from({ length: 5 }, (_, i) => `<li><a href="/c${i}">Category ${i}</a></li>`).join('');
    const html =
      `<div id="lonely" hidden><p>${answer}</p></div>` +
      `<button aria-controls="lonely">Open</button>` +
      `<button aria-expanded="false" aria-controls="menu">Menu</button><ul id="menu" hidden>${links}</ul>` +
      `<button aria-expanded="true" aria-controls="open">Open</button><div id="open"><p>${answer}</p></div>`;
    expect(shown(html)).toEqual([]);
  });

  it("shows a tab list's hidden panels when asked (not on a product page, whose other tabs hold reviews and shipping)", () => {
    const html =
      `<div role="tablist"><button role="tab" aria-selected="true" aria-controls="t1">Plans</button>` +
      `<button role="tab" aria-selected="false" aria-controls="t2">Steps</button></div>` +
      `<div role="tabpanel" id="t1"><p>${answer}</p></div><div role="tabpanel" id="t2" hidden><p>${answer}</p></div>`;
    expect(shown(html, true)).toEqual(['t2']);
    expect(shown(html, false)).toEqual([]);
  });

  it('shows a hidden tab panel labelled by its tab (aria-labelledby), when tabs are asked for', () => {
    const html =
      `<div role="tablist"><span role="tab" id="tab-py" aria-selected="true">Python</span><span role="tab" id="tab-js">Node.js</span></div>` +
      `<div role="tabpanel" id="p1" aria-labelledby="tab-py"><p>${answer}</p></div>` +
      `<div role="tabpanel" id="p2" aria-labelledby="tab-js" hidden><p>${answer}</p></div>` +
      `<div role="tabpanel" id="p3" aria-labelledby="heading-elsewhere" hidden><p>${answer}</p></div>`;
    expect(shown(html, true)).toEqual(['p2']);
    expect(shown(html, false)).toEqual([]);
  });
});
