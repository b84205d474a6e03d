import { ATTRIBUTE_LIMITS } from './attribute-values';
import { convertHtml } from './convert-html';

const URL = 'https://shop.example/books/1';

describe('attribute values (also.attributes)', () => {
  it('lists text attributes and absolute href/src of every element, head included, each (name, value) once', () => {
    const html = `<html><head><base href="/books/"><meta property="og:title" content="Bree &amp; Tanner">
      <script type="x"><a href="/in-script">x</a></script></head>
      <body><img src="c.jpg" alt="Cover"><a href="/a/1" title="Author page">A</a><a href="/a/1">again</a>
      <input value="42"><time datetime="2010-06-05">June 5</time><a href="javascript:alert(1)">js</a>
      <template><img alt="never shown"></template></body></html>`;
    const out = convertHtml({ html, url: URL, mode: 'full', also: { attributes: true } });
    expect(out.attributes).toEqual([
      { name: 'content', value: 'Bree & Tanner' },
      { name: 'alt', value: 'Cover' },
      { name: 'src', value: 'https://shop.example/books/c.jpg' },
      { name: 'title', value: 'Author page' },
      { name: 'href', value: 'https://shop.example/a/1' },
      { name: 'value', value: '42' },
      { name: 'datetime', value: '2010-06-05' },
    ]);
  });

  it('is left out unless asked for', () => {
    expect(convertHtml({ html: '<img alt="x">', url: URL, mode: 'full' }).attributes).toBeUndefined();
  });

  it('is bounded: values are cut and the list stops at its limit', () => {
    const long = 'x'.repeat(ATTRIBUTE_LIMITS.maxChars + 10);
    const many = Array.from({ length: ATTRIBUTE_LIMITS.maxValues + 5 }, (_, i) => `<img alt="a${i}">`).join('');
    const out = convertHtml({ html: `<img alt="${long}">${many}`, url: URL, mode: 'full', also: { attributes: true } });
    expect(out.attributes).toHaveLength(ATTRIBUTE_LIMITS.maxValues);
    expect(out.attributes![0].value).toHaveLength(ATTRIBUTE_LIMITS.maxChars);
  });
});
