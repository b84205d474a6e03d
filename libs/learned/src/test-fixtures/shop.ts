/**
 * A made-up bookshop for the learned-extraction specs (markup, names and books written for this project):
 * product pages rendered from generated data in two templates — `classic`, and `drifted` (every class
 * renamed, the detail list and the heading block reordered) — plus a listing page of another template.
 */

const ADJECTIVES = [
  'Quiet',
  'Hidden',
  'Northern',
  'Patient',
  'Silver',
  'Crooked',
  'Lantern',
  'Salt',
  'Harbour',
  'Winter',
  'Copper',
  'Gentle',
];
const NOUNS = [
  'Rivers',
  'Orchard',
  'Clockmaker',
  'Tidewater',
  'Almanac',
  'Lighthouse',
  'Meadow',
  'Cartographer',
  'Ferry',
  'Garden',
  'Signal',
  'Archive',
];
const FIRST = ['Ada', 'Bram', 'Cleo', 'Dara', 'Emil', 'Fenna', 'Goran', 'Hild', 'Ines', 'Jory', 'Kesia', 'Lorin'];
const LAST = ['Marlow', 'Penhallow', 'Quist', 'Ravensworth', 'Sallis', 'Thorne', 'Underhay', 'Vance', 'Wexley', 'Yarrow'];
const PUBLISHERS = ['Tidewater Press', 'Orchard & Finch', 'Northlight Books', 'Copperleaf Publishing'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

export interface Book {
  slug: string;
  title: string;
  format: string;
  authors: string[];
  publisher: string;
  /** As printed on the page ("March 3, 2024") and as ISO. */
  published: string;
  publishedIso: string;
  isbn13: string;
  price: number;
  pages: number;
  onSale: boolean;
  related: string[];
  reviews: string[];
}

/** ISBN-13 with a valid check digit (978 prefix, made-up body). */
function isbn(n: number): string {
  const body = `978${String(100000000 + ((n * 7919) % 900000000)).padStart(9, '0')}`;
  const sum = [...body].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

export function book(n: number): Book {
  const title = `The ${ADJECTIVES[n % ADJECTIVES.length]} ${NOUNS[(n * 5) % NOUNS.length]}${n % 4 === 0 ? `: Book ${(n % 7) + 1}` : ''}`;
  const authorCount = 1 + (n % 3 === 0 ? 1 : 0) + (n % 5 === 0 ? 1 : 0);
  const authors = Array.from({ length: authorCount }, (_, i) => `${FIRST[(n + i * 3) % FIRST.length]} ${LAST[(n * 3 + i) % LAST.length]}`);
  const year = 1995 + (n % 29);
  const month = n % 12;
  const day = 1 + (n % 28);
  return {
    slug: `book-${n}`,
    title,
    format: n % 2 === 0 ? 'Hardcover' : 'Paperback',
    authors,
    publisher: PUBLISHERS[n % PUBLISHERS.length],
    published: `${MONTHS[month]} ${day}, ${year}`,
    publishedIso: `${year}-${String(month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
    isbn13: isbn(n),
    price: Math.round((8 + ((n * 37) % 900) / 10 + (n % 9 === 0 ? 1200 : 0)) * 100) / 100,
    pages: 120 + ((n * 13) % 500),
    onSale: n % 6 === 0,
    related: Array.from({ length: n % 5 }, (_, i) => `The ${ADJECTIVES[(n + i + 1) % ADJECTIVES.length]} ${NOUNS[(n + i) % NOUNS.length]}`),
    reviews: Array.from({ length: (n * 7) % 4 }, (_, i) => `Review ${i + 1} of ${title}: ${i % 2 === 0 ? 'lovely' : 'slow in places'}.`),
  };
}

export const SHOP = 'http://shop.fixture.test';

export function productUrl(b: Book): string {
  return `${SHOP}/books/${b.slug}`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function money(n: number): string {
  return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/** A product page; `drifted` renames every class and reorders the detail list and the heading block. */
export function productPage(b: Book, variant: 'classic' | 'drifted' = 'classic'): string {
  const c = (name: string) => (variant === 'drifted' ? `x-${name}-2` : name);
  const heading = `<h1 class="${c('book-title')}">${escape(b.title)} <span class="${c('format')}">(${b.format})</span></h1>`;
  const byline = `<p class="${c('byline')}">by ${b.authors
    .map((a) => `<a class="${c('author')}" href="/authors/${a.toLowerCase().replace(/\W+/g, '-')}">${escape(a)}</a>`)
    .join(', ')}</p>`;
  const details = [
    `<li><b>Publisher:</b> ${escape(b.publisher)}</li>`,
    `<li><b>Published:</b> ${b.published}</li>`,
    `<li><b>ISBN-13:</b> ${b.isbn13}</li>`,
    `<li><b>Pages:</b> ${b.pages}</li>`,
  ];
  if (variant === 'drifted') details.reverse();
  const head = variant === 'drifted' ? `${byline}\n${heading}` : `${heading}\n${byline}`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(b.title)} | Gullwing Books</title>
<meta property="og:title" content="${escape(b.title)}"><link rel="canonical" href="${productUrl(b)}"></head>
<body>
<header class="${c('site-header')}"><a class="${c('logo')}" href="/">Gullwing Books</a>
<nav class="${c('main-nav')}"><ul><li><a href="/fiction">Fiction</a></li><li><a href="/poetry">Poetry</a></li><li><a href="/maps">Maps</a></li></ul></nav></header>
<main class="${c('product')}">
<div class="${c('crumbs')}"><a href="/">Home</a> › <a href="/fiction">Fiction</a> › ${escape(b.title)}</div>
${b.onSale ? `<div class="${c('banner')}"><p>On sale this week</p></div>` : ''}
<section class="${c('summary')}">
<a class="${c('cover')}" href="/covers/${b.slug}.jpg"><img src="/covers/${b.slug}-small.jpg" alt="Cover of ${escape(b.title)}"></a>
<div class="${c('info')}">
${head}
<div class="${c('buy')}"><span class="${c('price')}">${money(b.price)}</span> <button>Add to basket</button></div>
<ul class="${c('details')}">
${details.join('\n')}
</ul>
</div>
</section>
<section class="${c('reviews')}"><h2>Reviews</h2>
${b.reviews.length === 0 ? '<p>No reviews yet.</p>' : b.reviews.map((r) => `<div class="${c('review')}"><p>${escape(r)}</p></div>`).join('\n')}
</section>
<section class="${c('related')}"><h2>You may also like</h2><ul>
${b.related.map((t, i) => `<li><a href="/books/related-${i}">${escape(t)}</a></li>`).join('\n')}
</ul></section>
</main>
<footer class="${c('site-footer')}"><p>Gullwing Books, 1 Quay Street</p><ul><li><a href="/about">About</a></li><li><a href="/contact">Contact</a></li></ul></footer>
</body></html>`;
}

/** A listing page of the same shop: another template. */
export function listingPage(page: number): string {
  const books = Array.from({ length: 12 }, (_, i) => book(page * 12 + i));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fiction, page ${page} | Gullwing Books</title></head>
<body>
<header class="site-header"><a class="logo" href="/">Gullwing Books</a></header>
<main class="listing"><h1>Fiction</h1>
<table class="results"><thead><tr><th>Title</th><th>Price</th></tr></thead><tbody>
${books.map((b) => `<tr><td><a href="/books/${b.slug}">${escape(b.title)}</a></td><td>${money(b.price)}</td></tr>`).join('\n')}
</tbody></table>
<form class="pager"><select name="page"><option>1</option><option>2</option></select><input type="submit" value="Go"></form>
</main>
<footer class="site-footer"><p>Gullwing Books, 1 Quay Street</p></footer>
</body></html>`;
}

/** The schema the specs extract, in the service's normalised form (optional fields nullable). */
export const BOOK_SCHEMA = {
  type: 'object' as const,
  properties: {
    title: { type: 'string' as const },
    authors: { type: 'array' as const, items: { type: 'string' as const } },
    publisher: { type: ['string', 'null'] as Array<'string' | 'null'> },
    published: { type: ['string', 'null'] as Array<'string' | 'null'>, format: 'date' as const },
    isbn_13: { type: ['string', 'null'] as Array<'string' | 'null'> },
    price: { type: ['number', 'null'] as Array<'number' | 'null'> },
    cover: { type: ['string', 'null'] as Array<'string' | 'null'>, format: 'uri' as const },
  },
  required: ['title', 'authors', 'publisher', 'published', 'isbn_13', 'price', 'cover'],
  additionalProperties: false as const,
};

/** What a perfect model answers for a product page. */
export function truth(b: Book): Record<string, unknown> {
  return {
    title: b.title,
    authors: b.authors,
    publisher: b.publisher,
    published: b.publishedIso,
    isbn_13: b.isbn13,
    price: b.price,
    cover: `${SHOP}/covers/${b.slug}.jpg`,
  };
}
