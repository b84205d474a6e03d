import { getInnerHTML } from 'domutils';
import { convertHtml } from '../convert-html';
import { findFirst, parseHtml } from '../dom';
import { resolveAsyncFragments } from './async-fragments';

const RUNTIME =
  '<script>function $af(d,a,e,l,g,h,k,b,f,c){c=$af;if(a&&!c[a])(c[a+="$"]||(c[a]=[])).push(d);else{e=document;l=e.getElementById("af"+d);g=e.getElementById("afph"+d);h=e.createDocumentFragment();k=l.childNodes;b=0;for(f=k.length;b<f;b++)h.appendChild(k.item(0));g&&g.parentNode.replaceChild(h,g);c[d]=1}};$af(1);$af(2)</script>';

const resolved = (html: string): string => {
  const doc = parseHtml(html);
  resolveAsyncFragments(doc, html);
  return getInnerHTML(findFirst(doc, 'body')!);
};

describe('resolveAsyncFragments: streamed async fragments put where their script puts them', () => {
  it("moves each hidden holder's children to the placeholder of its number", () => {
    const html =
      '<body><main><noscript id="afph1"></noscript><p>Listing</p><span id="afph2"></span></main>' +
      `${RUNTIME}<div id="af1" style="display:none"><h1>Collectibles</h1></div><div id="af2" style="display:none"><p>Related searches</p></div></body>`;
    expect(resolved(html)).toBe(`<main><h1>Collectibles</h1><p>Listing</p><p>Related searches</p></main>${RUNTIME}`);
  });

  it('leaves a page without the runtime as it is', () => {
    const html = '<body><span id="afph1"></span><div id="af1" style="display:none"><p>Hidden</p></div></body>';
    expect(resolved(html)).toBe('<span id="afph1"></span><div id="af1" style="display:none"><p>Hidden</p></div>');
  });

  it("shows the page's title in the main content", () => {
    const html =
      `<html><head><title>Collectibles | Shop</title></head><body><main><span id="afph1"></span>` +
      `<p>Every item of the collection, listed with its price and its seller, one after the other, long enough to read.</p></main>` +
      `${RUNTIME}<div id="af1" style="display:none"><h1>Collectibles</h1></div></body></html>`;
    expect(convertHtml({ html, url: 'https://shop.example/b/collectibles', mode: 'main', format: 'text' }).markdown).toMatch(
      /^Collectibles\n/,
    );
  });
});
