import {
  HEADING_LEVELS,
  bodyOf,
  collapseWhitespace,
  findFirst,
  includesByTail,
  isSpaceCode,
  outermost,
  ownText,
  parseHtml,
  solidLength,
  textContent,
  textData,
  typeOf,
  visibleLength,
  visibleText,
  walk,
} from './dom';
import { isInvisible } from './visibility';

const body = (html: string) => bodyOf(parseHtml(html));

describe('visibleText: the text a reader of the page sees', () => {
  it('leaves out what a browser never renders: head, title, scripts, styles, templates, noscript, svg, embeds', () => {
    const doc = parseHtml(
      '<html><head><title>Tab title</title><style>p{}</style><meta name="x" content="y"></head><body>' +
        '<p>Shown</p><script>var x = 1</script><noscript>Enable JS</noscript><template><p>Later</p></template>' +
        '<svg><text>Icon</text></svg><iframe>Fallback</iframe><object>Plugin</object></body></html>',
    );
    expect(visibleText(doc)).toBe('Shown');
  });

  it('leaves out hidden elements: the hidden attribute, an inline display:none or visibility:hidden, aria-hidden copies', () => {
    const price = body(
      '<div><span hidden>Old</span><span style="display: none">Gone</span><span style="color:red;visibility:hidden">Ghost</span>' +
        '<span class="price"><span class="sr">$19.99</span><span aria-hidden="true">$<b>19</b>.99</span></span></div>',
    );
    expect(visibleText(price)).toBe('$19.99');
  });

  it('reads a subtree it is pointed at even when that element itself is hidden or unrendered', () => {
    const title = findFirst(parseHtml('<head><title> Tab  title </title></head>'), 'title')!;
    expect(visibleText(title)).toBe('Tab title');
  });

  it('separates words at block boundaries and collapses whitespace, no-break spaces included', () => {
    expect(visibleText(body('<table><tr><td>a</td><td>b</td></tr></table><h2>c</h2>d<br>e&nbsp;&nbsp;f'))).toBe('a b c d e f');
  });

  it('stops gathering text once the limit is reached', () => {
    expect(visibleText(body('<p>word</p>'.repeat(1000)), 20).length).toBeLessThan(40);
  });

  it('is iterative: thousands of nested elements do not overflow the stack', () => {
    const deep = `${'<div>'.repeat(20_000)}deep${'</div>'.repeat(20_000)}`;
    expect(visibleText(parseHtml(deep))).toBe('deep');
  });
});

describe('visibleLength: the length of the visible text, the text not gathered', () => {
  const pages = [
    '<html><head><title>Tab title</title></head><body><p>Shown</p><script>var x = 1</script><span hidden>Old</span></body></html>',
    '<table><tr><td> a </td><td>b</td></tr></table><h2>c</h2>  d<br>e&nbsp;&nbsp;f\n',
    '<div>  <p> one  two </p>\t<span>three</span><p></p>   </div>',
    `<section>${'<p>word and  more</p> '.repeat(300)}</section>`,
    '<p>   </p><div> <br> </div>',
  ];

  it('is the length of visibleText with and without a limit, for every element and text node', () => {
    for (const html of pages) {
      const doc = parseHtml(html);
      const nodes: Parameters<typeof visibleText>[0][] = [doc];
      walk(doc, (el) => {
        nodes.push(el, ...el.children.filter((c) => typeOf(c) === 'text'));
      });
      for (const node of nodes)
        for (const limit of [Infinity, 0, 1, 3, 20, 400]) expect(visibleLength(node, limit)).toBe(visibleText(node, limit).length);
    }
  });

  it('is iterative: thousands of nested elements do not overflow the stack', () => {
    const deep = `${'<div>'.repeat(20_000)} deep  one ${'</div>'.repeat(20_000)}`;
    expect(visibleLength(parseHtml(deep))).toBe(8);
  });
});

describe('collapseWhitespace: one space between words', () => {
  const reference = (text: string) => text.replace(/[\s\u00a0]+/g, ' ').trim();

  it('reads white space as `\\s` does, code unit by code unit', () => {
    const differing: number[] = [];
    for (let code = 0; code < 0x10000; code++) if (isSpaceCode(code) !== /\s/.test(String.fromCharCode(code))) differing.push(code);
    expect(differing).toEqual([]);
  });

  it('collapses runs of any white space to one space and trims, as the regular expression would', () => {
    const texts = [
      '',
      ' ',
      ' \n\t ',
      'word',
      'two words',
      ' lead',
      'trail ',
      'a  b',
      'a\nb',
      'a \u00a0b',
      '\u3000wide\u2003space\ufeff',
      ' \t Free\u00a0 shipping\u2003on\norders \u3000 ',
      'x \u0085 y',
      'one two  three\tfour \n five ',
    ];
    for (const text of texts) expect(collapseWhitespace(text)).toBe(reference(text));
  });

  it('returns a text that needs no change as it is', () => {
    const text = 'Already one space between words';
    expect(collapseWhitespace(text)).toBe(text);
  });
});

describe('includesByTail: a marker in a page source, found by its rarer part', () => {
  it('answers as includes(head + tail) does', () => {
    const cases: [string, string, string][] = [
      ['<div id="S:1" hidden>', 'id="', 'S:'],
      ['<div id=S:1 hidden> S:', 'id="', 'S:'],
      ['S:id="', 'id="', 'S:'],
      ['id="S', 'id="', 'S:'],
      ['"afph"+d', 'ph"', '+'],
      ['ph"+', 'ph"', '+'],
      ['h"+', 'ph"', '+'],
      ['<![CDATA[x]]>', '<![', 'CDATA['],
      ['CDATA[<![', '<![', 'CDATA['],
      ['', '<![', 'CDATA['],
    ];
    for (const [text, head, tail] of cases) expect(includesByTail(text, head, tail)).toBe(text.includes(head + tail));
  });
});

describe('textContent: the text of a subtree', () => {
  it('reads text in document order, leaving out comments, scripts and styles but for the root itself', () => {
    const doc = parseHtml('<div>a<b>b<i>c</i></b><!-- x --><script>s()</script><style>p{}</style>d<p>e</p></div>');
    expect(textContent(findFirst(doc, 'div')!)).toBe('abcde');
    expect(textContent(findFirst(doc, 'script')!)).toBe('s()');
    expect(textContent(findFirst(doc, 'div')!.children[0])).toBe('a');
    expect(textContent(doc)).toBe('abcde');
    let deep = '';
    for (let i = 0; i < 5000; i++) deep += '<span>';
    expect(textContent(parseHtml(deep + 'deep'))).toBe('deep');
  });
});

describe('solidLength: the characters a collapsed text keeps besides its spaces', () => {
  it('counts what is not white space, unicode spaces included, and is never more than the collapsed length', () => {
    const text = ' \t Free\u00a0 shipping\u2003on\norders \u3000 ';
    expect(solidLength(text)).toBe('Freeshippingonorders'.length);
    expect(solidLength(text)).toBeLessThanOrEqual(collapseWhitespace(text).length);
  });

  it('stops counting once past its bound', () => {
    expect(solidLength('x'.repeat(1000), 24)).toBe(25);
    expect(solidLength('short', 24)).toBe(5);
  });
});

describe('outermost: the blocks a rule finds, once each', () => {
  it('finds the outermost matches under the roots, not the roots, not inside a match nor what is skipped', () => {
    const root = body(
      '<div id="r" class="m"><div id="a" class="m"><div id="b" class="m"></div></div><aside><div id="c" class="m"></div></aside>' +
        '<section><div id="d" class="m"></div></section></div>',
    );
    const found = outermost(
      [findFirst(root, 'div')!],
      (el) => el.name === 'aside',
      (el) => el.attribs.class === 'm',
    );
    expect([...found].map((el) => el.attribs.id)).toEqual(['a', 'd']);
  });
});

describe('isInvisible', () => {
  it('does not hide ordinary elements, form controls or inline styles that only look hidden', () => {
    const doc = parseHtml(
      '<p id="a">x</p><button id="b">Buy</button><span id="c" style="display:inline">y</span><i id="d" aria-hidden="false">z</i>',
    );
    const ids: string[] = [];
    walk(doc, (el) => void (isInvisible(el) ? undefined : ids.push(el.attribs.id)));
    expect(ids).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('DOM helpers', () => {
  it('parses forgivingly and drops a leading byte-order mark', () => {
    const doc = parseHtml('\ufeff<P CLASS=x>one<div>two');
    expect(findFirst(doc, 'p')?.attribs.class).toBe('x');
    expect(textData(findFirst(doc, 'p')!.children[0])).toBe('one');
  });

  it('ownText reads only the element’s own text children; textData is empty for anything but text', () => {
    const label = findFirst(parseHtml('<dt> Tags: <a>x</a> <!-- c --></dt>'), 'dt')!;
    expect(ownText(label)).toBe('Tags:');
    expect(textData(label)).toBe('');
  });

  it('walks elements in document order, skipping a subtree when asked; bodyOf falls back to the document', () => {
    const doc = parseHtml('<body><nav><a>skip</a></nav><main><p>x</p></main></body>');
    const seen: string[] = [];
    walk(doc, (el) => {
      seen.push(el.name);
      return el.name !== 'nav';
    });
    expect(seen).toEqual(['body', 'nav', 'main', 'p']);
    const fragment = parseHtml('<p>no body</p>');
    expect(bodyOf(fragment)).toBe(fragment);
  });

  it('walks a block its visit meets (a walk inside a walk, findFirst inside a walk) and goes on where it was', () => {
    const doc = parseHtml('<body><ul><li><a>1</a><b>x</b></li><li><a>2</a></li></ul><p><a>3</a></p></body>');
    const seen: string[] = [];
    walk(doc, (el) => {
      seen.push(el.name);
      if (el.name !== 'li') return true;
      walk(el, (inner) => void seen.push(`${inner.name}<`));
      seen.push(`${findFirst(el, 'a')?.name ?? '-'}!`);
      return false;
    });
    expect(seen).toEqual(['body', 'ul', 'li', 'a<', 'b<', 'a!', 'li', 'a<', 'a!', 'p', 'a']);
  });

  it('walks on after a visit that threw', () => {
    const doc = parseHtml('<body><div><p>x</p></div><section><p>y</p></section></body>');
    expect(() =>
      walk(doc, (el) => {
        if (el.name === 'div') throw new Error('stop');
      }),
    ).toThrow('stop');
    const seen: string[] = [];
    walk(findFirst(doc, 'body')!, (el) => void seen.push(el.name));
    expect(seen).toEqual(['div', 'p', 'section', 'p']);
  });
});

describe('parseHtml: markup a browser forgives', () => {
  it('ends a CDATA opener in HTML content where it starts, not at a "]]>" that never comes', () => {
    const doc = parseHtml('<body><![CDATA[<div id="a"><p>Still parsed</p></div><script>var s = "<![CDATA[";</script></body>');
    expect(visibleText(doc)).toContain('Still parsed');
    expect(findFirst(doc, 'p')).toBeDefined();
    expect(textData(findFirst(doc, 'script')!.children[0])).toBe('var s = "<![CDATA[";');
  });
});

describe('HEADING_LEVELS: a heading element’s level', () => {
  it('gives h1 to h6 their levels and no other name one', () => {
    expect(['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((name) => HEADING_LEVELS.get(name))).toEqual([1, 2, 3, 4, 5, 6]);
    for (const name of ['h7', 'h0', 'header', 'hr', 'H1', 'constructor', 'toString']) expect(HEADING_LEVELS.get(name)).toBeUndefined();
  });
});
