import { Element as ElementNode } from 'domhandler';
import { childElements, findFirst, isElement, textData, type AnyNode, type Document, type Element, typeOf } from './dom';

/**
 * Readability-style main-content detection, without mutating the DOM: paragraphs score their
 * ancestors (commas, length), candidates are damped by link density, the best one is widened to
 * its parent when that scores well, related siblings are merged, and the result is cleaned
 * conditionally (link-heavy, image-heavy or form-like blocks are dropped).
 */
export interface MainContent {
  /** Elements to render, in document order. */
  roots: Element[];
  /** Descendants of `roots` to leave out. */
  removed: Set<Element>;
}

interface Flags {
  stripUnlikely: boolean;
  weightClasses: boolean;
  cleanConditionally: boolean;
}

interface Info {
  /** Whitespace-collapsed text length of the subtree. */
  text: number;
  /** Text length inside links. */
  link: number;
  commas: number;
  /** Has p/div/table/list/... descendants (readability's "div that is not a paragraph"). */
  blockDesc: boolean;
}

const UNLIKELY =
  /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|mathjax|shadow/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE =
  /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;
const SHARE = /(\b|_)(share|sharedaddy)(\b|_)/i;
const AD_OR_LOADING =
  /^(ad(vertising|vertisement)?|pub(licité)?|werb(ung)?|广告|Реклама|Anuncio|(loading|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$/iu;
const COMMAS = /[,،﹐︐︑⹀⸴⸲，]/g;
const SENTENCE_END = /\.( |$)/;

const UNLIKELY_ROLES = new Set(['menu', 'menubar', 'complementary', 'navigation', 'alert', 'alertdialog', 'dialog']);
const NEVER_CONTENT = new Set(['nav', 'footer', 'aside', 'figure', 'figcaption']);
/** Article furniture the published ground truth leaves out: captions, galleries, bylines, teasers. */
const FURNITURE =
  /caption|credit|gallery|slideshow|carousel|(?:^|[-_ ])(?:related|recommend|more-?stories|read-?more|newsletter|promo|teaser|subscribe|signup|byline|author|dateline|timestamp|date)/i;
/** Children that make a div a container rather than a paragraph. */
const DIV_TO_P = new Set([
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
const SCORED = new Set(['p', 'td', 'pre', 'section', 'h2', 'h3', 'h4', 'h5', 'h6']);
const PARAGRAPH_LIKE = new Set(['div', 'section', 'article', 'main']);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const TEXTISH = new Set(['span', 'li', 'td', 'blockquote', 'dl', 'div', 'img', 'ol', 'p', 'pre', 'table', 'ul']);
const CLEANED = new Set(['div', 'section', 'table', 'ul', 'ol', 'form', 'fieldset']);
const EMBEDS = new Set(['object', 'embed', 'iframe']);

const CHAR_THRESHOLD = 500;
const MAX_CLEAN_DEPTH = 400;
const LINK_LIST_DENSITY = 0.5;

export function extractMainContent(document: Document, isSkipped: (el: Element) => boolean): MainContent {
  const body = findFirst(document, 'body') ?? findFirst(document, 'html') ?? adoptIntoBody(document);
  const attempts: Flags[] = [
    { stripUnlikely: true, weightClasses: true, cleanConditionally: true },
    { stripUnlikely: false, weightClasses: true, cleanConditionally: true },
    { stripUnlikely: false, weightClasses: false, cleanConditionally: true },
    { stripUnlikely: false, weightClasses: false, cleanConditionally: false },
  ];
  let best: { content: MainContent; length: number } | undefined;
  for (const flags of attempts) {
    const grabbed = new Grabber(body, flags, isSkipped).grab();
    if (grabbed.length >= CHAR_THRESHOLD) return grabbed.content;
    if (!best || grabbed.length > best.length) best = grabbed;
  }
  return best!.content;
}

/** Fragments without <html>/<body>: wrap the top level so ancestors can be scored (the document is ours). */
function adoptIntoBody(document: Document): Element {
  const body = new ElementNode('body', {}, [...document.children]);
  for (const child of body.children) child.parent = body;
  body.parent = document;
  document.children = [body];
  return body;
}

class Grabber {
  private readonly info = new Map<Element, Info>();
  private readonly scores = new Map<Element, number>();
  /** Elements excluded while scoring (unlikely candidates, never-content tags, hidden). */
  private readonly excluded = new Set<Element>();

  constructor(
    private readonly body: Element,
    private readonly flags: Flags,
    private readonly isSkipped: (el: Element) => boolean,
  ) {}

  grab(): { content: MainContent; length: number } {
    this.measure();
    const top = this.pickTopCandidate();
    const roots = this.mergeSiblings(top);
    const removed = new Set<Element>(this.excluded);
    let length = 0;
    for (const root of roots) length += this.clean(root, removed);
    return { content: { roots, removed }, length };
  }

  /** One post-order pass: text/link/comma counts per element, paragraph scores to ancestors. */
  private measure(): void {
    const stack: { el: Element; i: number; text: number; link: number; commas: number; block: boolean; run: number; runCommas: number }[] =
      [];
    const enter = (el: Element) => stack.push({ el, i: 0, text: 0, link: 0, commas: 0, block: false, run: 0, runCommas: 0 });
    enter(this.body);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1];
      const children = frame.el.children;
      if (frame.i < children.length) {
        const child = children[frame.i++];
        if (typeOf(child) === 'text') {
          const data = textData(child);
          const len = normalizedLength(data);
          const commas = countCommas(data);
          frame.text += len;
          frame.commas += commas;
          frame.run += len;
          frame.runCommas += commas;
        } else if (isElement(child)) {
          if (this.exclude(child)) {
            this.excluded.add(child);
          } else {
            enter(child);
          }
        }
        continue;
      }
      stack.pop();
      const el = frame.el;
      const isLink = el.name === 'a';
      const info: Info = { text: frame.text, link: isLink ? frame.text : frame.link, commas: frame.commas, blockDesc: frame.block };
      this.info.set(el, info);
      this.flushRun(frame);
      const parent = stack[stack.length - 1];
      if (parent) {
        parent.text += info.text;
        parent.link += info.link;
        parent.commas += info.commas;
        const isBlock = DIV_TO_P.has(el.name) || info.blockDesc;
        if (isBlock) {
          parent.block = true;
          this.flushRun(parent);
        } else {
          parent.run += info.text;
          parent.runCommas += info.commas;
        }
      }
      if (SCORED.has(el.name) || (PARAGRAPH_LIKE.has(el.name) && !info.blockDesc)) {
        this.scoreParagraph(el, info.text, info.commas);
      }
    }
  }

  /** Inline runs inside a container div would be wrapped in <p> by readability; score them as such. */
  private flushRun(frame: { el: Element; block: boolean; run: number; runCommas: number }): void {
    if (frame.block && frame.run >= 25) this.scoreRun(frame.el, frame.run, frame.runCommas);
    frame.run = 0;
    frame.runCommas = 0;
  }

  private scoreRun(container: Element, length: number, commas: number): void {
    const score = 2 + commas + Math.min(Math.floor(length / 100), 3);
    this.addToAncestors(container, score, 0);
  }

  private scoreParagraph(el: Element, length: number, commas: number): void {
    if (length < 25) return;
    const score = 2 + commas + Math.min(Math.floor(length / 100), 3);
    const parent = el.parent;
    if (parent && isElement(parent)) this.addToAncestors(parent, score, 0);
  }

  private addToAncestors(start: Element, score: number, startLevel: number): void {
    let node: Element | null = start;
    for (let level = startLevel; level < 5 && node && isElement(node); level++) {
      if (!node.parent) break;
      const divider = level === 0 ? 1 : level === 1 ? 2 : level * 3;
      const current = this.scores.get(node) ?? this.initialScore(node);
      this.scores.set(node, current + score / divider);
      if (node === this.body) break;
      node = node.parent as Element | null;
    }
  }

  private initialScore(el: Element): number {
    let score = this.classWeight(el);
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

  private classWeight(el: Element): number {
    if (!this.flags.weightClasses) return 0;
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

  private exclude(el: Element): boolean {
    if (this.isSkipped(el)) return true;
    if (NEVER_CONTENT.has(el.name)) return true;
    const role = el.attribs.role;
    if (role && UNLIKELY_ROLES.has(role)) return true;
    if (!this.flags.stripUnlikely) return false;
    if (
      el.name === 'a' ||
      el.name === 'article' ||
      el.name === 'main' ||
      el.name === 'body' ||
      el.name === 'table' ||
      el.name === 'tbody' ||
      el.name === 'tr' ||
      el.name === 'td' ||
      el.name === 'th'
    )
      return false;
    const match = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`;
    if (match.length < 3) return false;
    if (FURNITURE.test(match)) return true;
    return UNLIKELY.test(match) && !MAYBE_CANDIDATE.test(match) && !insideTag(el, 'table', 'code');
  }

  private linkDensity(el: Element): number {
    const info = this.info.get(el);
    if (!info || info.text === 0) return 0;
    return info.link / info.text;
  }

  private finalScore(el: Element): number {
    return (this.scores.get(el) ?? 0) * (1 - this.linkDensity(el));
  }

  private pickTopCandidate(): Element {
    const ranked: { el: Element; score: number }[] = [];
    for (const el of this.scores.keys()) ranked.push({ el, score: this.finalScore(el) });
    ranked.sort((a, b) => b.score - a.score);
    const topFive = ranked.slice(0, 5);
    let top = topFive[0]?.el;
    if (!top || top === this.body) return this.body;
    const topScore = topFive[0].score;

    // Several strong candidates sharing an ancestor: the article is that ancestor.
    const alternativeAncestors: Set<Element>[] = [];
    for (let i = 1; i < topFive.length; i++) {
      if (topFive[i].score / topScore >= 0.75) alternativeAncestors.push(ancestors(topFive[i].el));
    }
    if (alternativeAncestors.length >= 3) {
      for (let p = top.parent as Element | null; p && p !== this.body && isElement(p); p = p.parent as Element | null) {
        let containing = 0;
        for (const set of alternativeAncestors) if (set.has(p)) containing++;
        if (containing >= 3) {
          top = p;
          break;
        }
      }
    }

    // Climb while the parent scores better (the candidate was one part of a larger article).
    let lastScore = this.finalScore(top);
    const threshold = lastScore / 3;
    for (let p = top.parent as Element | null; p && p !== this.body && isElement(p); p = p.parent as Element | null) {
      if (!this.scores.has(p)) continue;
      const parentScore = this.finalScore(p);
      if (parentScore < threshold) break;
      if (parentScore > lastScore) {
        top = p;
        break;
      }
      lastScore = parentScore;
    }

    // An only child stands for its parent.
    for (
      let p = top.parent as Element | null;
      p && p !== this.body && isElement(p) && childElements(p).length === 1;
      p = p.parent as Element | null
    ) {
      top = p;
    }
    return top;
  }

  private mergeSiblings(top: Element): Element[] {
    const parent = top.parent;
    if (!parent || !isElement(parent) || top === this.body) return [top];
    const topScore = this.finalScore(top);
    const threshold = Math.max(10, topScore * 0.2);
    const topClass = top.attribs.class ?? '';
    const roots: Element[] = [];
    for (const sibling of parent.children) {
      if (!isElement(sibling)) continue;
      if (sibling === top) {
        roots.push(sibling);
        continue;
      }
      if (this.excluded.has(sibling) || !this.info.has(sibling)) continue;
      let bonus = 0;
      if (topClass !== '' && sibling.attribs.class === topClass) bonus += topScore * 0.2;
      if (this.scores.has(sibling) && this.finalScore(sibling) + bonus >= threshold) {
        roots.push(sibling);
        continue;
      }
      if (sibling.name === 'p' || (sibling.name === 'div' && !this.info.get(sibling)!.blockDesc)) {
        const info = this.info.get(sibling)!;
        const density = this.linkDensity(sibling);
        if (info.text > 80 && density < 0.25) roots.push(sibling);
        else if (info.text < 80 && info.text > 0 && density === 0 && SENTENCE_END.test(textOf(sibling))) roots.push(sibling);
      }
    }
    return roots;
  }

  /**
   * Bottom-up conditional cleaning (readability's _cleanConditionally) over the chosen roots;
   * returns the kept text length.
   */
  private clean(root: Element, removed: Set<Element>): number {
    return this.cleanNode(root, removed, false, 0).text;
  }

  private cleanNode(el: Element, removed: Set<Element>, protectedByAncestor: boolean, depth: number): Counts {
    const counts: Counts = { text: 0, link: 0, commas: 0, p: 0, img: 0, li: 0, input: 0, embed: 0, heading: 0, textish: 0, list: 0 };
    if (removed.has(el)) return counts;
    if (depth > MAX_CLEAN_DEPTH) {
      // Garbage nesting: count the text, judge nothing (keeps the stack bounded).
      counts.text = normalizedLength(textOf(el));
      return counts;
    }
    const protect = protectedByAncestor || el.name === 'code' || el.name === 'pre' || (el.name === 'table' && isDataTable(el, this.info));
    let run = 0;
    for (const child of el.children) {
      if (typeOf(child) === 'text') {
        const data = textData(child);
        const len = normalizedLength(data);
        counts.text += len;
        counts.commas += countCommas(data);
        run += len;
        continue;
      }
      if (!isElement(child)) continue;
      if (removed.has(child) || this.isSkipped(child)) {
        removed.add(child);
        continue;
      }
      const c = this.cleanNode(child, removed, protect, depth + 1);
      if (removed.has(child)) continue;
      counts.text += c.text;
      counts.link += child.name === 'a' ? c.text : c.link;
      counts.commas += c.commas;
      counts.p += c.p + (child.name === 'p' ? 1 : 0);
      counts.img += c.img + (child.name === 'img' ? 1 : 0);
      counts.li += c.li + (child.name === 'li' ? 1 : 0);
      counts.input += c.input + (child.name === 'input' || child.name === 'select' || child.name === 'textarea' ? 1 : 0);
      counts.embed += c.embed + (EMBEDS.has(child.name) ? 1 : 0);
      counts.heading += HEADINGS.has(child.name) ? c.text : c.heading;
      counts.textish += TEXTISH.has(child.name) ? c.text : c.textish;
      counts.list += child.name === 'ul' || child.name === 'ol' ? c.text : c.list;
      if (DIV_TO_P.has(child.name) || this.info.get(child)?.blockDesc) {
        // Inline runs of a container become paragraphs in readability.
        if (run > 0) counts.p++;
        counts.textish += run;
        run = 0;
      } else {
        run += c.text;
      }
    }
    if (this.info.get(el)?.blockDesc && run > 0) {
      counts.p++;
      counts.textish += run;
    }
    if (depth > 0 && !protect && this.shouldRemove(el, counts)) {
      removed.add(el);
    }
    return counts;
  }

  private shouldRemove(el: Element, c: Counts): boolean {
    const name = el.name;
    if (this.flags.weightClasses && SHARE.test(`${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`) && c.text < CHAR_THRESHOLD) return true;
    if (HEADINGS.has(name) && (name === 'h1' || name === 'h2') && this.classWeight(el) < 0) return true;
    if (!this.flags.cleanConditionally || !CLEANED.has(name)) return false;
    // A div without block descendants is a paragraph for readability, not a container to clean.
    if ((name === 'div' || name === 'section') && !this.info.get(el)?.blockDesc) return false;
    const isList = name === 'ul' || name === 'ol' || (c.text > 0 && c.list / c.text > 0.9);
    const weight = this.classWeight(el);
    if (weight < 0) return true;
    if (c.commas >= 10) return false;
    const linkDensity = c.text === 0 ? 0 : c.link / c.text;
    const headingDensity = c.text === 0 ? 0 : c.heading / c.text;
    const textDensity = c.text === 0 ? 0 : c.textish / c.text;
    const li = c.li - 100;
    const isFigureChild = insideTag(el, 'figure');
    if (c.text < 40 && AD_OR_LOADING.test(textOf(el).trim())) return true;
    const remove =
      (!isFigureChild && c.img > 1 && c.p / c.img < 0.5) ||
      (!isList && li > c.p) ||
      c.input > Math.floor(c.p / 3) ||
      (!isList && !isFigureChild && headingDensity < 0.9 && c.text < 25 && (c.img === 0 || c.img > 2) && linkDensity > 0) ||
      (!isList && weight < 25 && linkDensity > 0.2) ||
      (weight >= 25 && linkDensity > 0.5) ||
      (c.embed === 1 && c.text < 75) ||
      c.embed > 1 ||
      (c.img === 0 && textDensity === 0) ||
      // Link lists (related stories, "more news") are navigation even when readability would keep them.
      (isList && linkDensity > LINK_LIST_DENSITY);
    if (remove && isList) {
      // A plain list of images is content (galleries).
      if (c.img > 0 && c.img === c.li) return false;
    }
    return remove;
  }
}

interface Counts {
  text: number;
  link: number;
  commas: number;
  p: number;
  img: number;
  li: number;
  input: number;
  embed: number;
  heading: number;
  textish: number;
  list: number;
}

/** readability's data-table test: markup that only data tables use, or enough rows and columns. */
function isDataTable(table: Element, info: Map<Element, Info>): boolean {
  const a = table.attribs;
  if (a.role === 'presentation' || a.datatable === '0') return false;
  if (a.summary) return true;
  let rows = 0;
  let cols = 0;
  let dataMarkup = false;
  let nested = false;
  const stack: AnyNode[] = [...table.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (!isElement(node)) continue;
    switch (node.name) {
      case 'table':
        nested = true;
        continue;
      case 'caption':
        if ((info.get(node)?.text ?? 1) > 0) dataMarkup = true;
        break;
      case 'col':
      case 'colgroup':
      case 'tfoot':
      case 'thead':
      case 'th':
        dataMarkup = true;
        break;
      case 'tr': {
        rows++;
        let c = 0;
        for (const cell of node.children)
          if (isElement(cell) && (cell.name === 'td' || cell.name === 'th')) c += Number(cell.attribs.colspan) || 1;
        cols = Math.max(cols, c);
        break;
      }
    }
    for (const child of node.children) stack.push(child);
  }
  if (dataMarkup) return true;
  if (nested) return false;
  if (rows >= 10 || cols > 4) return true;
  return rows * cols > 10;
}

function ancestors(el: Element): Set<Element> {
  const set = new Set<Element>();
  for (let p = el.parent; p && isElement(p); p = p.parent) set.add(p);
  return set;
}

function insideTag(el: Element, ...names: string[]): boolean {
  for (let p = el.parent; p && isElement(p); p = p.parent) if (names.includes(p.name)) return true;
  return false;
}

function textOf(el: Element): string {
  let out = '';
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    out += textData(node);
    const children = (node as { children?: AnyNode[] }).children;
    if (children) for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out;
}

function normalizedLength(text: string): number {
  let len = 0;
  let space = true;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const isSpace = c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160;
    if (isSpace) {
      if (!space) len++;
      space = true;
    } else {
      len++;
      space = false;
    }
  }
  return len;
}

function countCommas(text: string): number {
  COMMAS.lastIndex = 0;
  let n = 0;
  while (COMMAS.exec(text) !== null) n++;
  return n;
}
