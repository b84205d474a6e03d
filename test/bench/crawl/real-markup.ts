/**
 * Real-sized pages for the benchmarks (issue 37): what a documentation or news page weighs as served,
 * 50–150 KB, generated so that no corpus file has to be read: a head with meta tags, an inline style
 * sheet and scripts (JSON-LD, a bundle's bootstrap), a navigation bar, an article with headings,
 * paragraphs, lists, a table and figures, a sidebar and a footer full of links. Links are in-page
 * anchors (`#…`): they add the markup a converter must walk, not pages a crawler must fetch.
 * The article's text is ~15–25 % of the bytes, as on real pages (docs/archive.md: the corpus's articles
 * are 114.6 KB as served, median).
 */

const WORDS =
  'data model schema crawl page archive extract value field price title author review rating store index query result format table list item link image figure section chapter guide release version server client request response cache token'.split(
    ' ',
  );

function rng(seed: number): () => number {
  let x = (seed * 2654435761) >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function words(next: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(next() * WORDS.length)]);
  return out.join(' ');
}

/** The size a page of this seed has: 50–150 KB, spread evenly. */
export function realPageBytes(seed: number): number {
  return 50_000 + Math.floor(rng(seed + 7)() * 100) * 1000;
}

/** `<head>…<body>` furniture and an article around `title` and `facts` (HTML the extraction reads), ~realPageBytes(seed). */
export function realPage(seed: number, title: string, facts: string, tail: string): string {
  const next = rng(seed);
  const target = realPageBytes(seed);
  const css = Array.from(
    { length: 120 },
    (_, i) =>
      `.c${i}-${Math.floor(next() * 1e6).toString(36)}{margin:${i % 7}px ${i % 5}px;padding:${i % 3}rem;color:#${(i * 4099).toString(16).slice(0, 6).padEnd(6, '0')};display:${i % 2 ? 'flex' : 'block'}}`,
  ).join('\n');
  const jsonLd = JSON.stringify({
    '@context': 'https://schema.org',
    '@type': 'Article',
    headline: title,
    author: { '@type': 'Person', name: words(next, 2) },
    datePublished: '2026-11-02',
    keywords: words(next, 12).split(' '),
  });
  const bundle = `window.__APP__=${JSON.stringify({ routes: Array.from({ length: 80 }, (_, i) => ({ id: i, path: `/${words(next, 2).replace(' ', '/')}`, chunk: Math.floor(next() * 1e9).toString(16) })) })};`;
  const nav = Array.from(
    { length: 40 },
    (_, i) => `<li class="nav-item"><a class="nav-link" href="#nav-${i}">${words(next, 2)}</a></li>`,
  ).join('');
  const footer = Array.from({ length: 60 }, (_, i) => `<li><a href="#footer-${i}" class="footer-link">${words(next, 3)}</a></li>`).join('');
  const sidebar = Array.from(
    { length: 25 },
    (_, i) => `<li><a href="#related-${i}"><img src="data:," alt="" width="64" height="48"><span>${words(next, 6)}</span></a></li>`,
  ).join('');
  const head = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="description" content="${words(next, 20)}"><meta property="og:title" content="${title}"><link rel="canonical" href="#"><style>${css}</style><script type="application/ld+json">${jsonLd}</script><script>${bundle}</script></head>`;
  const top = `<body class="layout"><header class="site-header"><div class="container"><a class="brand" href="#">Bench</a><nav aria-label="main"><ul class="nav">${nav}</ul></nav></div></header><main class="container"><div class="row"><article class="col-md-8 post"><h1>${title}</h1>${facts}`;
  const bottom = `</article><aside class="col-md-4 sidebar"><h2>Related</h2><ul class="related">${sidebar}</ul></aside></div></main><footer class="site-footer"><ul class="footer-links">${footer}</ul><p class="copyright">${words(next, 12)}</p></footer>${tail}<script>(function(){var d=document;d.documentElement.className+=' js';})();</script></body></html>`;
  const body: string[] = [];
  let size = head.length + top.length + bottom.length;
  let section = 0;
  while (size < target) {
    const i = section++;
    const parts = [`<section id="s${i}" class="c${i % 120}"><h2>${words(next, 5)}</h2>`];
    for (let p = 0; p < 3; p++) parts.push(`<p class="lead-${p}">${words(next, 50 + Math.floor(next() * 40))}.</p>`);
    if (i % 3 === 0)
      parts.push(
        `<ul class="features">${Array.from({ length: 6 }, () => `<li><span class="icon"></span><strong>${words(next, 2)}</strong> ${words(next, 9)}</li>`).join('')}</ul>`,
      );
    if (i % 4 === 1)
      parts.push(
        `<div class="table-wrap"><table class="table table-striped"><thead><tr><th>${words(next, 1)}</th><th>${words(next, 1)}</th><th>${words(next, 1)}</th></tr></thead><tbody>${Array.from({ length: 8 }, (_, r) => `<tr><td>${words(next, 2)}</td><td>${r * 17}</td><td><code>${words(next, 1)}</code></td></tr>`).join('')}</tbody></table></div>`,
      );
    if (i % 5 === 2)
      parts.push(
        `<figure class="figure"><img src="data:," alt="${words(next, 4)}" loading="lazy" width="800" height="450"><figcaption>${words(next, 10)}</figcaption></figure>`,
      );
    parts.push(
      `<div class="share"><a href="#s${i}" class="btn btn-sm">#</a><button type="button" class="btn btn-link" data-action="copy" data-target="s${i}">copy</button></div></section>`,
    );
    const html = parts.join('');
    body.push(html);
    size += html.length;
  }
  return head + top + body.join('') + bottom;
}
