import { isElement, textData, typeOf, type Element } from '../dom';
import { wrapsDataTable } from '../structure/table-wrappers';
import { isDataTable } from './data-table';
import { AD_OR_LOADING, classWeight, CLEANED, DIV_TO_P, EMBEDS, HEADINGS, SHARE, TEXTISH } from './signals';
import { insideTag, lastCommas, lengthAndCommas, normalizedLength, textOf } from './text-measure';
import type { Census, GrabFlags, InfoOf } from './types';

/** Below this many characters a share bar is dropped; also the length a grab must reach (main-content.ts). */
export const CHAR_THRESHOLD = 500;
/** Deeper than this, text is counted but nothing judged (garbage nesting keeps the recursion bounded). */
const MAX_CLEAN_DEPTH = 400;
/** A list whose text is more than this share of link text is navigation. */
const LINK_LIST_DENSITY = 0.5;

/** What a block holds, counted bottom-up while cleaning. */
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
  /** Text inside data tables. */
  table: number;
}

function emptyCounts(): Counts {
  return { text: 0, link: 0, commas: 0, p: 0, img: 0, li: 0, input: 0, embed: 0, heading: 0, textish: 0, list: 0, table: 0 };
}

/** A class or id naming a share bar (each read alone: SHARE never spans the two). */
function isShareBar(el: Element): boolean {
  const { class: cls, id } = el.attribs;
  return (cls !== undefined && SHARE.test(cls)) || (id !== undefined && SHARE.test(id));
}

/**
 * Bottom-up conditional cleaning (readability's _cleanConditionally) over the chosen roots: a block
 * that is link-heavy, image-heavy, form-like, an embed, a share bar or an ad label is added to
 * `removed`. Code, preformatted text and data tables are protected with everything inside them.
 */
export class ConditionalCleaner {
  constructor(
    private readonly flags: GrabFlags,
    private readonly infoOf: InfoOf,
    private readonly isSkipped: (el: Element) => boolean,
    /** The body's census under the same skip rule, its texts listed (types.ts Census): read, not measured again. */
    private readonly census?: Census,
  ) {}

  /** With a census: the index of the next text in its list. */
  private at = 0;

  /** One Counts per depth, reused: a block's counts are read by its parent before its next child is cleaned. */
  private readonly countsAt: Counts[] = [];

  /** Cleans below `root` (never `root` itself) and returns the kept text length. */
  clean(root: Element, removed: Set<Element>): number {
    if (removed.has(root)) return 0;
    if (this.census) this.at = this.infoOf(root)?.first ?? 0;
    return this.cleanNode(root, removed, false, insideTag(root, 'figure'), 0)!.text;
  }

  /** The counts of what `el` keeps, or undefined when `el` itself is removed. */
  private cleanNode(
    el: Element,
    removed: Set<Element>,
    protectedByAncestor: boolean,
    inFigure: boolean,
    depth: number,
  ): Counts | undefined {
    const counts = (this.countsAt[depth] ??= emptyCounts());
    counts.text = 0;
    counts.link = 0;
    counts.commas = 0;
    counts.p = 0;
    counts.img = 0;
    counts.li = 0;
    counts.input = 0;
    counts.embed = 0;
    counts.heading = 0;
    counts.textish = 0;
    counts.list = 0;
    counts.table = 0;
    if (depth > MAX_CLEAN_DEPTH) {
      counts.text = normalizedLength(textOf(el));
      if (this.census) this.at += this.census.counts.get(el)?.texts ?? 0;
      return counts;
    }
    const dataTable = el.name === 'table' && isDataTable(el, this.infoOf);
    const protect = protectedByAncestor || el.name === 'code' || el.name === 'pre' || dataTable;
    const figureBelow = inFigure || el.name === 'figure';
    const census = this.census;
    let run = 0;
    for (const child of el.children) {
      if (typeOf(child) === 'text') {
        let len: number;
        if (census) {
          len = census.texts.lengths[this.at];
          counts.commas += census.texts.commas[this.at];
          this.at++;
        } else {
          len = lengthAndCommas(textData(child));
          counts.commas += lastCommas();
        }
        counts.text += len;
        run += len;
        continue;
      }
      if (!isElement(child)) continue;
      if (removed.has(child) || this.isSkipped(child)) {
        removed.add(child);
        if (census) this.at += census.counts.get(child)?.texts ?? 0;
        continue;
      }
      const c = this.cleanNode(child, removed, protect, figureBelow, depth + 1);
      if (c === undefined) continue;
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
      counts.table += c.table;
      if (DIV_TO_P.has(child.name) || this.infoOf(child)?.blockDesc) {
        // Inline runs of a container become paragraphs in readability.
        if (run > 0) counts.p++;
        counts.textish += run;
        run = 0;
      } else {
        run += c.text;
      }
    }
    if (run > 0 && this.infoOf(el)?.blockDesc) {
      counts.p++;
      counts.textish += run;
    }
    if (dataTable) counts.table = counts.text;
    // A data table's wrappers (a scroller, a responsive box) are the table (structure/table-wrappers.ts).
    if (depth > 0 && !protect && !wrapsDataTable(counts.text, counts.table) && this.shouldRemove(el, counts, inFigure)) {
      removed.add(el);
      return undefined;
    }
    return counts;
  }

  private shouldRemove(el: Element, c: Counts, isFigureChild: boolean): boolean {
    const name = el.name;
    if (this.flags.weightClasses && c.text < CHAR_THRESHOLD && isShareBar(el)) return true;
    if (HEADINGS.has(name) && (name === 'h1' || name === 'h2') && classWeight(el, this.flags) < 0) return true;
    if (!this.flags.cleanConditionally || !CLEANED.has(name)) return false;
    // A div without block descendants is a paragraph for readability, not a container to clean.
    if ((name === 'div' || name === 'section') && !this.infoOf(el)?.blockDesc) return false;
    const isList = name === 'ul' || name === 'ol' || (c.text > 0 && c.list / c.text > 0.9);
    const weight = classWeight(el, this.flags);
    if (weight < 0) return true;
    if (c.commas >= 10) return false;
    const linkDensity = c.text === 0 ? 0 : c.link / c.text;
    const headingDensity = c.text === 0 ? 0 : c.heading / c.text;
    const textDensity = c.text === 0 ? 0 : c.textish / c.text;
    const li = c.li - 100;
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
