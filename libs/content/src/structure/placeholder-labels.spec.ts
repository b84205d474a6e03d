import { findFirst, parseHtml } from '../dom';
import { placeholderLabels } from './placeholder-labels';
import { textCensus } from './text-census';

function labels(html: string): string[] {
  const body = findFirst(parseHtml(`<body>${html}</body>`), 'body')!;
  return [
    ...placeholderLabels(
      [body],
      textCensus(body, () => false),
      () => true,
    ),
  ].map((el) => el.attribs.id ?? el.name);
}

describe("placeholder labels: a script's placeholders the region kept", () => {
  it('finds the outermost blocks whose whole text is a loading or advertising label', () => {
    const html =
      `<div id="price">USD 60.00 <div id="spinner"><svg></svg> Loading </div></div>` +
      `<ul id="recs"><li>Loading...</li><li>Loading...</li></ul><div id="ad"><span>Advertisement</span></div>`;
    expect(labels(html).sort()).toEqual(['ad', 'li', 'li', 'spinner']);
  });

  it('not a label inside a sentence, nor longer text', () => {
    expect(labels(`<p>Loading the dishwasher is easy.</p><p>Loading</p>`)).toEqual(['p']);
    expect(labels(`<div><p>Shipping</p><p>Loading</p></div>`)).toEqual(['p']);
  });

  it('finds the longest labels, in any case, with their white space collapsed', () => {
    const html =
      `<p id="a">ADVERTISEMENT</p><p id="b">chargement...</p><p id="c">\n  Загрузка...  </p>` +
      `<p id="d">Advertisements</p><p id="e">Loading....</p>`;
    expect(labels(html).sort()).toEqual(['a', 'b', 'c']);
  });
});
