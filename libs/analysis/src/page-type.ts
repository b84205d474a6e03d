import { mapChrome, type ChromeMap } from './chrome';
import { bodyOf, isInvisible, visibleText, walk } from '@app/content';
import { parsePageDom, type PageDom } from './dom';
import { extractDetailFields } from './detail-fields';
import { extractMetadata, jsonLdTypes } from './metadata';
import type { DetailField, DetectedElement, PageMetadataInput, PageType, PageTypeVerdict } from './types';

const ARTICLE_TYPES =
  /^(Article|NewsArticle|BlogPosting|Report|ScholarlyArticle|TechArticle|AnalysisNewsArticle|OpinionNewsArticle|ReportageNewsArticle|LiveBlogPosting|SocialMediaPosting)$/;
const LISTING_TYPES = /^(ItemList|CollectionPage|OfferCatalog|DataCatalog)$/;
const DETAIL_TYPES =
  /^(Recipe|Event|JobPosting|Person|ProfilePage|Book|Movie|LocalBusiness|Restaurant|Course|SoftwareApplication|Place|Hotel|Organization|VideoObject|Question|QAPage|FAQPage|RealEstateListing|Vehicle|Car)$/;
/** Long paragraphs: prose, not captions. */
const PROSE_PARAGRAPH_CHARS = 80;
const ARTICLE_PROSE_CHARS = 1000;
const PROSE_BLOCK_CHARS = 80;
const LISTING_SHARE_STRONG = 0.4;
const LISTING_SHARE_WEAK = 0.2;
const COMMERCE = /\b(add to (cart|bag|basket|trolley)|buy now|add to wish ?list|in stock|out of stock)\b/i;
const PRICE = /(?:[$€£¥₹]\s?\d{1,6}(?:[.,]\d{2})?\b)|\b\d{1,6}[.,]\d{2}\s?(?:€|eur|usd|gbp)\b/i;
const PRODUCT_ID = /\b(isbn(-1[03])?|sku|upc|ean|gtin|mpn|model (no|number))\b/i;

export interface ClassifyInput {
  html: string;
  url: string;
  repeated: DetectedElement[];
  metadata?: PageMetadataInput;
}

/** Page type from JSON-LD @type, og:type, URL shape, repeated-element dominance, prose density and shop cues. */
export function classifyPageType(input: ClassifyInput): PageTypeVerdict {
  const dom = parsePageDom(input.html);
  const chrome = mapChrome(dom);
  const metadata = input.metadata ?? extractMetadata(dom);
  return classifyParsed(dom, chrome, input.url, input.repeated, metadata, extractDetailFields(dom, chrome));
}

export function classifyParsed(
  dom: PageDom,
  chrome: ChromeMap,
  url: string,
  repeated: DetectedElement[],
  metadata: PageMetadataInput,
  detailFields: DetailField[],
): PageTypeVerdict {
  const scores: Record<PageType, number> = { listing: 0, detail: 0, article: 0, product: 0, search: 0, home: 0, other: 0 };
  const reasons: Record<PageType, string[]> = { listing: [], detail: [], article: [], product: [], search: [], home: [], other: [] };
  const vote = (type: PageType, points: number, reason: string): void => {
    scores[type] += points;
    reasons[type].push(reason);
  };

  for (const t of [...new Set(jsonLdTypes(metadata.jsonLd))]) {
    if (t === 'Product' || t === 'ProductGroup') vote('product', 3, `JSON-LD @type ${t}`);
    else if (ARTICLE_TYPES.test(t)) vote('article', 3, `JSON-LD @type ${t}`);
    else if (t === 'SearchResultsPage') vote('search', 3, `JSON-LD @type ${t}`);
    else if (LISTING_TYPES.test(t)) vote('listing', 2, `JSON-LD @type ${t}`);
    else if (DETAIL_TYPES.test(t) && t !== 'Organization') vote('detail', 2, `JSON-LD @type ${t}`);
  }
  const og = (metadata.openGraph?.['og:type'] ?? '').toLowerCase();
  if (og === 'article') vote('article', 2, 'og:type article');
  else if (/product/.test(og)) vote('product', 2, `og:type ${og}`);
  else if (/^(book|profile|video|music|restaurant|place)/.test(og)) vote('detail', 1.5, `og:type ${og}`);

  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed) {
    const query = parsed.searchParams;
    const path = parsed.pathname;
    if (path === '/' || path === '' || /^\/(index\.\w+)?$/.test(path)) vote('home', 1.5, 'site root URL');
    if (/\/search\b/i.test(path) || ['q', 'query', 'search', 's', 'keyword', 'keywords'].some((k) => query.has(k)))
      vote('search', 2, 'search URL');
    if (/\/(product|products|dp|item|p)\/[^/]+/i.test(path)) vote('product', 1, 'product-like URL');
    if (/\/(tag|tags|category|categories|collections?|page)\/|[?&](page|p)=\d/i.test(path + parsed.search))
      vote('listing', 1, 'listing-like URL');
    if (/\/(author|user|users|profile|people|person)\/[^/]+/i.test(path)) vote('detail', 0.5, 'profile-like URL');
    if (/\/(19|20)\d{2}\/\d{1,2}\//.test(path) || /[a-z0-9]+(-[a-z0-9]+){4,}/i.test(path)) vote('article', 1, 'dated or long-slug URL');
  }

  const main = repeated.find((r) => r.type !== 'form');
  // Blocks of running text without fields are paragraphs in divs ("div.body__paragraph"), not records.
  const proseBlocks =
    main !== undefined &&
    main.type !== 'link_list' &&
    main.type !== 'table_row' &&
    main.avgTextChars >= PROSE_BLOCK_CHARS &&
    main.fields.filter((f) => f.kind !== 'url').length <= 1;
  if (main && proseBlocks) {
    if (main.textShare >= LISTING_SHARE_WEAK) vote('article', 2, `${main.name} ×${main.count} are paragraph-like text blocks`);
  } else if (main) {
    if (main.type === 'link_list') {
      if (main.count >= 10 && main.textShare >= 0.3) vote('listing', 2, `link list ${main.name} ×${main.count} is the main content`);
    } else if (main.textShare >= LISTING_SHARE_STRONG) {
      vote('listing', 3.5, `${main.name} ×${main.count} holds ${Math.round(main.textShare * 100)}% of the text`);
    } else if (main.textShare >= LISTING_SHARE_WEAK && main.count >= 4) {
      vote('listing', 1.5, `${main.name} ×${main.count} holds ${Math.round(main.textShare * 100)}% of the text`);
    }
  }

  const prose = proseChars(dom, chrome);
  if (prose >= ARTICLE_PROSE_CHARS && (dom.totalText === 0 || prose / dom.totalText >= 0.3)) {
    vote('article', prose >= 2 * ARTICLE_PROSE_CHARS ? 2.5 : 1.5, `${prose} chars of paragraph prose`);
  }

  const text = visibleText(bodyOf(dom.doc), 60_000);
  if (COMMERCE.test(text)) vote('product', 1.5, 'shop controls (add to cart / stock)');
  if (PRICE.test(text) && scores.product > 0) vote('product', 1, 'price on the page');
  if (PRODUCT_ID.test(text) && scores.product > 0) vote('product', 1, 'product identifiers (ISBN/SKU/...)');

  const labels = detailFields.filter((f) => f.label !== 'heading').length;
  if (labels >= 2) vote('detail', 1.5, `${labels} label/value pairs`);
  if (labels >= 2 && scores.product > 0) vote('product', 0.5, 'product attributes as label/value pairs');
  if (detailFields.some((f) => f.label === 'heading') && !main && dom.totalText > 0)
    vote('detail', 0.5, 'one main heading, no repeated records');

  const ranked = (Object.keys(scores) as PageType[])
    .filter((t) => scores[t] > 0)
    .sort((a, b) => scores[b] - scores[a] || order(a) - order(b));
  if (ranked.length === 0 || dom.totalText === 0) {
    return {
      pageType: 'other',
      confidence: dom.totalText === 0 ? 0.9 : 0.3,
      reasons: dom.totalText === 0 ? ['no visible text'] : ['no signal'],
    };
  }
  const best = ranked[0];
  const second = ranked[1] ? scores[ranked[1]] : 0;
  const confidence = Math.round(Math.min(0.99, scores[best] / (scores[best] + second + 1)) * 100) / 100;
  return { pageType: best, confidence, reasons: reasons[best] };
}

/** Tie-break order: the more specific type wins. */
function order(t: PageType): number {
  return ['product', 'article', 'search', 'listing', 'detail', 'home', 'other'].indexOf(t);
}

function proseChars(dom: PageDom, chrome: ChromeMap): number {
  let sum = 0;
  walk(dom.doc, (el) => {
    if (isInvisible(el) || chrome.inChrome(el)) return false;
    if (el.name === 'p') {
      const n = dom.textLen.get(el) ?? 0;
      if (n >= PROSE_PARAGRAPH_CHARS) sum += n;
      return false;
    }
    return true;
  });
  return sum;
}
