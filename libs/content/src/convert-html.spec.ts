import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { convertHtml } from './convert-html';
import type { ConversionInput } from './types';

const URL_ = 'https://shop.example/books/item.html';

function md(html: string, extra: Partial<ConversionInput> = {}): string {
  return convertHtml({ html, url: URL_, mode: 'full', linkUrls: 'all', ...extra }).markdown;
}

describe('convertHtml (full mode)', () => {
  it('renders headings, paragraphs and lists compactly', () => {
    const out = md(
      '<body><h1>Title</h1><p>First   para\n with  space.</p><ul><li>one</li><li><p>two</p></li></ul><ol start="3"><li>three</li></ol></body>',
    );
    expect(out).toBe('# Title\n\nFirst para with space.\n\n- one\n- two\n\n3. three');
  });

  it('never leaves blank-line runs or trailing whitespace', () => {
    const out = md('<div><p>a</p><div></div><div>\n\n</div><br><br><br><p>b</p></div>');
    expect(out).toBe('a\n\nb');
    expect(out).not.toMatch(/\n\n\n| \n/);
  });

  it('renders data tables as pipe tables', () => {
    const out = md(
      '<table><thead><tr><th>Name</th><th>Price</th></tr></thead><tbody><tr><td>Book</td><td>$5 | cheap</td></tr></tbody></table>',
    );
    expect(out).toBe('| Name | Price |\n|---|---|\n| Book | $5 \\| cheap |');
  });

  it('pads colspan and rowspan so columns stay aligned', () => {
    const out = md(
      '<table><tr><th>A</th><th>B</th><th>C</th></tr><tr><td colspan="2">wide</td><td>c1</td></tr><tr><td rowspan="2">tall</td><td>b2</td><td>c2</td></tr><tr><td>b3</td><td>c3</td></tr></table>',
    );
    const rows = out.split('\n');
    expect(rows).toHaveLength(5);
    for (const row of rows) expect(row.split('|').length).toBe(5);
    expect(rows[2]).toBe('| wide | | c1 |');
    expect(rows[4]).toBe('| | b3 | c3 |');
  });

  it('renders layout tables (nested tables, single column) as blocks', () => {
    const out = md(
      '<table><tr><td><table><tr><td>Publisher:</td><td>Acme</td></tr><tr><td>Year:</td><td>2010</td></tr></table></td><td><p>Side</p></td></tr></table>',
    );
    expect(out).toContain('| Publisher: | Acme |');
    expect(out).toContain('Side');
    expect(md('<table><tr><td>only</td></tr><tr><td>column</td></tr></table>')).toBe('only\n\ncolumn');
  });

  it('resolves links and images to absolute URLs and drops unsafe ones', () => {
    const out = md(
      '<p><a href="../authors/kim">Kim</a> <a href="javascript:alert(1)">js</a> <a href="#top">top</a> <img src="/c.jpg" alt="Cover"> <img src="data:image/png;base64,AAA" alt="Inline"> <img src="/x.gif" alt=""></p>',
    );
    expect(out).toContain('[Kim](https://shop.example/authors/kim)');
    expect(out).toContain('![Cover](https://shop.example/c.jpg)');
    expect(out).not.toMatch(/javascript:|data:|x\.gif|#top/);
    expect(out).toContain('js');
    expect(out).toContain('top');
  });

  it('honours <base href>', () => {
    const out = md('<base href="https://cdn.example/base/"><p><a href="page">P</a><img src="i.png" alt="I"></p>');
    expect(out).toContain('[P](https://cdn.example/base/page)');
    expect(out).toContain('![I](https://cdn.example/base/i.png)');
  });

  it('keeps link URLs only in running text under the default "prose" policy', () => {
    const html =
      '<ul><li><a href="/a">Home</a></li><li><a href="/b">Books</a></li></ul><p>Read the <a href="/review">full review</a> of this wonderful book before buying it.</p>';
    const out = convertHtml({ html, url: URL_, mode: 'full' }).markdown;
    expect(out).toContain('- Home\n- Books');
    expect(out).toContain('[full review](https://shop.example/review)');
    expect(convertHtml({ html, url: URL_, mode: 'full', linkUrls: 'none' }).markdown).not.toContain('](');
  });

  it('removes hidden elements', () => {
    const out = md(
      '<p>shown</p><p hidden>h1</p><div aria-hidden="true">h2</div><span style="display: none">h3</span><div style="color:red;visibility:hidden">h4</div><input type="hidden" value="h5"><p style="display:block">visible</p>',
    );
    expect(out).toBe('shown\n\nvisible');
  });

  it('removes scripts, styles, noscript, templates, svg and form controls', () => {
    const out = md(
      '<p>text</p><script>var x = "s1";</script><style>.a{}</style><noscript>n1</noscript><template><p>t1</p></template><svg><title>svg1</title><text>s</text></svg><form><label>Qty</label><select><option>o1</option></select><button>b1</button></form>',
    );
    expect(out).toBe('text\n\nQty');
  });

  it('removes navigation, footers, page headers and cookie banners', () => {
    const out = md(
      '<header><a href="/">Logo</a></header><nav><a href="/x">Menu</a></nav><div role="navigation">R</div><div id="cookie-banner">We use cookies</div><div class="site-footer">SF</div><main><article><header><h1>Product</h1></header><p>Body</p></article></main><footer>Copyright</footer>',
    );
    expect(out).toBe('# Product\n\nBody');
  });

  it('drops UI action links and share widgets', () => {
    const out = md(
      '<p>Price $5</p><a href="/cart?add=1">Add to Cart</a> <a href="https://www.facebook.com/sharer.php?u=x">Facebook</a><div class="social-share">Share</div>',
    );
    expect(out).toBe('Price $5');
  });

  it('extracts metadata, OpenGraph and JSON-LD (skipping invalid blocks)', () => {
    const html = `<html lang="de"><head><title> My  Page </title><meta name="description" content="Desc">
      <link rel="canonical" href="/canon"><meta property="og:title" content="OG"><meta property="og:image" content="https://i.example/a.png">
      <script type="application/ld+json">{"@type":"Product","name":"Book"}</script>
      <script type="application/ld+json">{ invalid json </script>
      <script type="application/ld+json"><!-- {"@type":"Organization"} --></script></head><body><p>x</p></body></html>`;
    const { metadata } = convertHtml({ html, url: URL_, mode: 'full' });
    expect(metadata).toEqual({
      title: 'My Page',
      description: 'Desc',
      language: 'de',
      canonicalUrl: 'https://shop.example/canon',
      openGraph: { 'og:title': 'OG', 'og:image': 'https://i.example/a.png' },
      jsonLd: [{ '@type': 'Product', name: 'Book' }, { '@type': 'Organization' }],
    });
  });

  it('extracts absolute, deduplicated http(s) links without fragments', () => {
    const html =
      '<nav><a href="/a#x">A</a></nav><a href="/a">A again</a><a href="https://other.example/b?q=1#frag">B</a><a href="mailto:x@y.z">mail</a><a href="javascript:void 0">js</a><a href="ftp://f.example/">ftp</a><a href="/c"><img alt="C img"></a>';
    const { links } = convertHtml({ html, url: URL_, mode: 'full' });
    expect(links).toEqual([
      { url: 'https://shop.example/a', text: 'A' },
      { url: 'https://other.example/b?q=1', text: 'B' },
      { url: 'https://shop.example/c', text: '' },
    ]);
  });

  it('is deterministic', () => {
    const html = '<h1>T</h1><p>Hello <a href="/x">x</a></p><table><tr><td>a</td><td>b</td></tr><tr><td>c</td><td>d</td></tr></table>';
    for (const mode of ['full', 'main'] as const) {
      const a = convertHtml({ html, url: URL_, mode });
      const b = convertHtml({ html, url: URL_, mode });
      expect({ ...a, stats: { ...a.stats, ms: 0 } }).toEqual({ ...b, stats: { ...b.stats, ms: 0 } });
    }
  });

  it('survives garbage, unclosed and empty input', () => {
    expect(md('')).toBe('');
    expect(convertHtml({ html: '', url: 'not a url', mode: 'main' }).markdown).toBe('');
    expect(md('<div><p>unclosed <b>bold <i>both</div> tail </table></td>')).toBe('unclosed bold both\n\ntail');
    expect(md('<<<>>>&&&;<p <a href=>x</a></p>')).toContain('x');
    expect(md('<td>stray</td><td>cells</td>')).toBe('stray cells');
    const { markdown, links } = convertHtml({ html: '<a href="/rel">rel</a>', url: '', mode: 'full' });
    expect(markdown).toBe('rel');
    expect(links).toEqual([]);
  });

  it('handles deeply nested markup without overflowing the stack', () => {
    const depth = 20_000;
    const html = '<div>'.repeat(depth) + 'deep text' + '</div>'.repeat(depth);
    expect(md(html)).toBe('deep text');
    expect(convertHtml({ html, url: URL_, mode: 'main' }).markdown).toContain('deep text');
  });

  it('converts a huge page and reports its sizes and the time it took', () => {
    const row = '<tr><td>Item name</td><td>value &amp; more</td></tr>';
    const html = `<table><tr><th>k</th><th>v</th></tr>${row.repeat(50_000)}</table>`;
    const result = convertHtml({ html, url: URL_, mode: 'full' });
    expect(result.stats.htmlBytes).toBe(Buffer.byteLength(html));
    expect(result.stats.markdownBytes).toBe(Buffer.byteLength(result.markdown));
    expect(result.markdown.split('\n')).toHaveLength(50_002);
    // How fast is a benchmark's question (npm run bench:content), not a test's.
    expect(Number.isFinite(result.stats.ms) && result.stats.ms > 0).toBe(true);
  });
});

describe('convertHtml (main mode)', () => {
  it('picks the article over navigation, sidebars and comments', () => {
    const para = (n: number) =>
      `<p>Paragraph ${n} of the story, with enough words, commas, and detail to count as real content for the scorer.</p>`;
    const html = `<body><div class="menu"><a href="/1">One</a> <a href="/2">Two</a></div>
      <div id="content"><div class="article-body">${[1, 2, 3, 4, 5, 6].map(para).join('')}</div></div>
      <div class="sidebar"><ul><li><a href="/r1">Related story one</a></li><li><a href="/r2">Related story two</a></li></ul></div>
      <div class="comments"><p>First comment, nice article, thanks for sharing this.</p></div></body>`;
    const out = convertHtml({ html, url: URL_, mode: 'main' }).markdown;
    expect(out).toContain('Paragraph 1 of the story');
    expect(out).toContain('Paragraph 6 of the story');
    expect(out).not.toMatch(/One|Related story|First comment/);
  });

  // Real pages vendored from the article-extraction benchmark (MIT, see its ORIGIN.md).
  const corpus = resolve(__dirname, '../../../test/fixtures/corpus/articles');
  describe('on real corpus pages', () => {
    const truth = JSON.parse(readFileSync(join(corpus, 'ground-truth.json'), 'utf8')) as Record<
      string,
      { articleBody: string; url: string }
    >;
    // An ASP.NET page wrapped in <form> (Al Jazeera), a BBC article and a WSJ article.
    const ids = Object.keys(truth).filter((id) => /^(42aad16bde|70cb2d5bca|042bb7b5fe)/.test(id));

    it.each(ids)('%s: F1 of 4-gram shingles ≥ 0.9', (id) => {
      const html = gunzipSync(readFileSync(join(corpus, 'html', `${id}.html.gz`))).toString('utf8');
      const out = convertHtml({ html, url: truth[id].url, mode: 'main', format: 'text' }).markdown;
      const { precision, recall } = shingleScore(out, truth[id].articleBody);
      expect((2 * precision * recall) / (precision + recall)).toBeGreaterThanOrEqual(0.9);
    });

    it('found the three pages', () => expect(ids).toHaveLength(3));
  });
});

function shingleScore(prediction: string, truth: string): { precision: number; recall: number } {
  const shingles = (text: string) => {
    const tokens = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
    const counts = new Map<string, number>();
    for (let i = 0; i + 4 <= tokens.length; i++) {
      const key = tokens.slice(i, i + 4).join(' ');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  };
  const p = shingles(prediction);
  const t = shingles(truth);
  let overlap = 0;
  for (const [key, n] of p) overlap += Math.min(n, t.get(key) ?? 0);
  const sum = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
  return { precision: overlap / Math.max(1, sum(p)), recall: overlap / Math.max(1, sum(t)) };
}

describe('convertHtml with a link selector (crawl follow_selector)', () => {
  const html = `<html><body>
    <ul class="pager"><li class="next"><a href="/page/2/">Next</a></li><li class="prev"><a href="/page/0/">Prev</a></li></ul>
    <div class="card"><a href="/item/1#top">One</a><a href="/item/2">Two</a><a href="https://other.example/x">Off</a></div>
    <a class="card-link" href="/item/1">Again</a><a href="mailto:x@y.z">mail</a></body></html>`;

  it('selects a matched anchor, and the anchors inside a matched element', () => {
    const out = convertHtml({ html, url: 'https://shop.example/list', mode: 'full', linkSelector: 'li.next, .card, a.card-link' });
    expect(out.selectedLinks).toEqual([
      { url: 'https://shop.example/page/2/', text: 'Next' },
      { url: 'https://shop.example/item/1', text: 'One' },
      { url: 'https://shop.example/item/2', text: 'Two' },
      { url: 'https://other.example/x', text: 'Off' },
    ]);
    expect(out.links.map((l) => l.url)).toContain('https://shop.example/page/0/');
  });

  it('has no selectedLinks without a selector, and none when nothing matches', () => {
    expect(convertHtml({ html, url: 'https://shop.example/', mode: 'full' }).selectedLinks).toBeUndefined();
    expect(convertHtml({ html, url: 'https://shop.example/', mode: 'full', linkSelector: 'nav a' }).selectedLinks).toEqual([]);
  });
});

describe('convertHtml with further forms (scrape formats text and html)', () => {
  const html = `<html><head><title>T</title><script>var x = 1</script></head><body>
    <nav><a href="/">Home</a> <a href="/a">A</a> <a href="/b">B</a></nav>
    <main><article><h1 class="big" style="color:red">Title</h1>
    <p onclick="evil()">Read <a href="guide" data-x="1">the guide</a> <span>now</span>. This paragraph is long enough to be the main content of the page, with commas, and words.</p>
    <p>Another paragraph, to make the article the obvious main content, with more commas, words and sentences here.</p>
    <img src="/d.png" alt="Diagram"><div hidden>secret</div><!-- note --><a href="javascript:alert(1)">js</a></article></main>
    <footer>Footer text</footer></body></html>`;
  const url = 'https://docs.example/page';

  it('gives the same content as text (no markdown marks) and as cleaned HTML (absolute URLs, reader attributes only)', () => {
    const out = convertHtml({ html, url, mode: 'main', also: { text: true, html: true } });
    expect(out.markdown).toContain('# Title');
    expect(out.text).toContain('Title');
    expect(out.text).not.toContain('#');
    expect(out.text).toContain('Read the guide now.');
    expect(out.html).toContain('<h1>Title</h1>');
    expect(out.html).toContain('<a href="https://docs.example/guide">the guide</a> now.');
    expect(out.html).toContain('<img src="https://docs.example/d.png" alt="Diagram">');
    expect(out.html).not.toMatch(/secret|onclick|style=|class=|data-x|<!--|<script|Footer|Home|javascript:/);
  });

  it('full mode keeps the page minus chrome; without `also` there is neither text nor html', () => {
    const full = convertHtml({ html, url, mode: 'full', also: { html: true } });
    expect(full.html).toContain('<h1>Title</h1>');
    expect(full.text).toBeUndefined();
    const plain = convertHtml({ html, url, mode: 'full' });
    expect(plain.html).toBeUndefined();
    expect(plain.text).toBeUndefined();
  });
});

describe('nested lists', () => {
  it('keep their depth as two spaces per level, in ordered and unordered lists', () => {
    const html = `<body><ul><li>One<ul><li>Two<ol><li>Three</li><li>Four</li></ol></li></ul></li><li>Five</li></ul>
      <table><tr><td><ul><li>a<ul><li>b</li></ul></li></ul></td></tr></table></body>`;
    const md = convertHtml({ html, url: 'https://x.example/', mode: 'full' }).markdown;
    expect(md).toContain('- One\n  - Two\n    1. Three\n    2. Four\n- Five');
    expect(md).not.toContain('\u0002');
  });
});

describe('convertHtml: inline spacing, link trees, link bars, a page without main content', () => {
  it('separates touching links and images by a space only where the text has none', () => {
    expect(
      md('<body><p>See <a href="/a">Statista</a>, then <a href="/b">one</a><a href="/c">two</a> (<a href="/d">here</a>).</p></body>', {
        format: 'text',
      }),
    ).toBe('See Statista, then one two (here).');
    expect(md('<body><p>Read <a href="/a">the guide</a>.</p></body>')).toBe('Read [the guide](https://shop.example/a).');
  });

  it('renders a definition list of links (a table of contents) as a nested list', () => {
    const toc =
      '<body><dl class="toc"><dt><a href="/1">1. Preface</a></dt><dd><dl><dt><a href="/1.1">1.1. What is it?</a></dt></dl></dd>' +
      '<dt><a href="/2">2. Tutorial</a></dt></dl><dl><dt>Term</dt><dd>A definition.</dd></dl></body>';
    expect(md(toc, { format: 'text' })).toBe('- 1. Preface\n  - 1.1. What is it?\n- 2. Tutorial\n\nTerm\n\nA definition.');
  });

  it('renders an index whose unlinked terms head linked sub-entries as a nested list, and a glossary as text', () => {
    const index =
      '<body><dl><dt>abs, <a href="/m">Math</a></dt><dt>aggregate function</dt><dd><dl><dt>built-in, <a href="/f">Functions</a></dt></dl></dd></dl>' +
      '<dl><dt>Term</dt><dd>A definition with <a href="/x">a link</a>.</dd></dl></body>';
    expect(md(index, { format: 'text' })).toBe(
      '- abs, Math\n- aggregate function\n  - built-in, Functions\n\nTerm\n\nA definition with a link.',
    );
  });

  it('never renders a prev/up/next bar as a table, and keeps a table of data', () => {
    const bar =
      '<body><table summary="Navigation header"><tr><th colspan="3">1.3. Creating a Database</th></tr>' +
      '<tr><td><a href="p.html">Prev</a></td><td><a href="u.html">Up</a></td><td><a href="n.html">Next</a></td></tr></table>' +
      '<table><tr><th>Plan</th><th>Price</th></tr><tr><td><a href="/basic">Basic</a></td><td>$5</td></tr></table></body>';
    const out = md(bar, { format: 'text' });
    expect(out).toContain('1.3. Creating a Database\n\nPrev\n\nUp\n\nNext');
    expect(out).toContain('| Plan | Price |');
  });

  it('falls back to the whole page without chrome, then gives nothing when the page holds only chrome (issue 39)', () => {
    const menuOnly =
      '<body><nav><a href="/a">Alpha</a> <a href="/b">Beta</a></nav><footer><ul><li><a href="/h">Help Center</a></li></ul></footer></body>';
    expect(md(menuOnly, { mode: 'main', format: 'text' })).toBe('');
    const both = convertHtml({ html: menuOnly, url: URL_, mode: 'main', also: { html: true, text: true } });
    expect([both.markdown, both.text, both.html]).toEqual(['', '', '']);
    // The whole page's own conversion still has what it had (chrome aside, as `full` always did).
    expect(md(menuOnly, { mode: 'full', format: 'text' })).toBe('');
    const shell =
      '<body><header><a href="#main">Skip navigation links</a></header><noscript>You need to enable JavaScript to run this app.</noscript><div id="root"></div></body>';
    expect(md(shell, { mode: 'main', format: 'text' })).toBe('');
    const chromeAndText =
      '<body><nav><a href="/a">Alpha</a></nav><div class="cart"><p>Trade In has moved. Get credit for your used gear.</p></div></body>';
    expect(md(chromeAndText, { mode: 'main', format: 'text' })).toContain('Trade In has moved');
  });

  it('gives the description of a page without text when it is a cut of the page’s text, else nothing', () => {
    const shell = (description: string) =>
      `<html><head><meta name="description" content="${description}"></head><body><div id="app"></div></body></html>`;
    const cut = shell('I am choosing my first telescope for the planets and want advice on a starter one to go with my budget of&hellip;');
    expect(md(cut, { mode: 'main', format: 'text' })).toBe(
      'I am choosing my first telescope for the planets and want advice on a starter one to go with my budget of…',
    );
    expect(convertHtml({ html: cut, url: URL_, mode: 'main', also: { html: true } }).html).toBe(
      '<p>I am choosing my first telescope for the planets and want advice on a starter one to go with my budget of…</p>',
    );
    expect(
      md(shell('Shop the Tan Rug from Rugs. Our washable rugs are made to order, stain-resistant and machine washable. Free shipping!'), {
        mode: 'main',
        format: 'text',
      }),
    ).toBe('');
  });
});
