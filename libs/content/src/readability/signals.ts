import type { Element } from '../dom';
import { isTextFigure } from '../structure/text-figures';
import { insideTag } from './text-measure';
import type { GrabFlags } from './types';

/**
 * What an element's tag, role, class and id say about it, as readability reads them: furniture to
 * leave out, names that raise or lower a candidate, tags that make a div a container.
 */
const UNLIKELY =
  /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|mathjax|shadow/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;
/** Share bars: dropped when short, whatever the other rules say. */
export const SHARE = /(\b|_)(share|sharedaddy)(\b|_)/i;
/** A block whose whole text is an advertising or loading label. */
export const AD_OR_LOADING =
  /^(ad(vertising|vertisement)?|pub(licité)?|werb(ung)?|广告|Реклама|Anuncio|(loading|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$/iu;
export const SENTENCE_END = /\.( |$)/;

const UNLIKELY_ROLES = new Set(['menu', 'menubar', 'complementary', 'navigation', 'alert', 'alertdialog', 'dialog']);
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const NEVER_CONTENT = new Set(['nav', 'footer', 'aside', 'figure', 'figcaption']);
/** Tags never taken for unlikely candidates, whatever their class: content or the tables that hold it. */
const ALWAYS_CANDIDATE = new Set(['a', 'article', 'main', 'body', 'table', 'tbody', 'tr', 'td', 'th']);
/** Article furniture the published ground truth leaves out: captions, galleries, bylines, teasers. */
const FURNITURE =
  /caption|credit|gallery|slideshow|carousel|(?:^|[-_ ])(?:related|recommend|more-?stories|read-?more|newsletter|promo|teaser|subscribe|signup|byline|author|dateline|timestamp|date)/i;

/** Children that make a div a container rather than a paragraph. */
export const DIV_TO_P = new Set([
  'blockquote',
  'dl',
  'div',
  'img',
  'ol',
  'p',
  'pre',
  'table',
  'ul',
  'section',
  'article',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'main',
  'aside',
  'nav',
  'footer',
  'li',
]);
/** Elements whose text scores their ancestors. */
export const SCORED = new Set(['p', 'td', 'pre', 'section', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** Containers that score like a paragraph when they hold no block. */
export const PARAGRAPH_LIKE = new Set(['div', 'section', 'article', 'main']);
export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
export const TEXTISH = new Set(['span', 'li', 'td', 'blockquote', 'dl', 'div', 'img', 'ol', 'p', 'pre', 'table', 'ul']);
/** Blocks the conditional cleaning judges. */
export const CLEANED = new Set(['div', 'section', 'table', 'ul', 'ol', 'form', 'fieldset']);
export const EMBEDS = new Set(['object', 'embed', 'iframe']);

/** ±25 for each of class and id that reads as content or as furniture (0 when the grab does not weigh classes). */
export function classWeight(el: Element, flags: GrabFlags): number {
  if (!flags.weightClasses) return 0;
  let weight = 0;
  const cls = el.attribs.class;
  if (cls) {
    if (NEGATIVE.test(cls)) weight -= 25;
    if (POSITIVE.test(cls)) weight += 25;
  }
  const id = el.attribs.id;
  if (id) {
    if (NEGATIVE.test(id)) weight -= 25;
    if (POSITIVE.test(id)) weight += 25;
  }
  return weight;
}

/** A candidate's score before any paragraph adds to it: its class weight and what its tag usually holds. */
export function initialScore(el: Element, flags: GrabFlags): number {
  let score = classWeight(el, flags);
  switch (el.name) {
    case 'div':
      score += 5;
      break;
    case 'pre':
    case 'td':
    case 'blockquote':
      score += 3;
      break;
    case 'address':
    case 'ol':
    case 'ul':
    case 'dl':
    case 'dd':
    case 'dt':
    case 'li':
    case 'form':
      score -= 3;
      break;
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6':
    case 'th':
      score -= 5;
      break;
  }
  return score;
}

/** Left out of the grab before scoring: skipped by the caller, never content, a furniture role, or (when stripping) an unlikely name. */
export function isExcluded(el: Element, flags: GrabFlags, isSkipped: (el: Element) => boolean): boolean {
  if (isSkipped(el)) return true;
  // A figure that holds a table, a quotation or code is text (structure/text-figures.ts).
  if (NEVER_CONTENT.has(el.name) && !isTextFigure(el)) return true;
  const role = el.attribs.role;
  if (role && UNLIKELY_ROLES.has(role)) return true;
  if (!flags.stripUnlikely) return false;
  if (ALWAYS_CANDIDATE.has(el.name)) return false;
  const { class: cls, id } = el.attribs;
  // The names read as `${class} ${id}`; shorter than 3 characters, they say nothing.
  if ((cls === undefined ? 0 : cls.length) + (id === undefined ? 0 : id.length) < 2) return false;
  const heading = HEADING_TAGS.has(el.name);
  let verdict: number;
  if (id === undefined) {
    // Most elements have a class and no id: the verdict looked up by the class as it stands (no string built).
    const verdicts = heading ? headingClassVerdicts : blockClassVerdicts;
    verdict = verdicts.get(cls) ?? remember(verdicts, cls, `${cls} `, heading);
  } else {
    const match = `${cls ?? ''} ${id}`;
    const verdicts = heading ? headingVerdicts : blockVerdicts;
    verdict = verdicts.get(match) ?? remember(verdicts, match, match, heading);
  }
  return verdict === FURNITURE_NAME || (verdict === UNLIKELY_NAME && !insideTag(el, 'table', 'code'));
}

/** The verdict on `match` (nameVerdict), kept under `key` in `verdicts`. */
function remember(verdicts: Map<string, number>, key: string, match: string, heading: boolean): number {
  const verdict = nameVerdict(match, heading);
  if (verdicts.size >= VERDICTS_MAX) verdicts.clear();
  verdicts.set(key, verdict);
  return verdict;
}

const FURNITURE_NAME = 1;
const UNLIKELY_NAME = 2;

/** What a class and id (`match`) say alone: furniture, an unlikely candidate (outside tables and code), or neither (0). */
function nameVerdict(match: string, heading: boolean): number {
  if (FURNITURE.test(match)) return FURNITURE_NAME;
  // A heading's class that calls it a header (`section-header`, `headerTxt`) says what a heading is, not where it stands.
  const named = heading ? match.replace(/header/gi, '') : match;
  return UNLIKELY.test(named) && !MAYBE_CANDIDATE.test(named) ? UNLIKELY_NAME : 0;
}

/**
 * The verdict on each class and id seen (a heading's apart): a page repeats a few hundred of them over thousands of
 * elements, each grab attempt and the region's furniture ask. Bounded, as the content threads live long.
 */
const blockVerdicts = new Map<string, number>();
const headingVerdicts = new Map<string, number>();
/** The same for an element without an id, by its class alone. */
const blockClassVerdicts = new Map<string, number>();
const headingClassVerdicts = new Map<string, number>();
const VERDICTS_MAX = 10_000;
