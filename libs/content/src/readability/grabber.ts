import { childElements, isElement, textData, type Element, typeOf } from '../dom';
import { CHAR_THRESHOLD, ConditionalCleaner } from './conditional-cleaner';
import { DIV_TO_P, initialScore, isExcluded, PARAGRAPH_LIKE, SCORED, SENTENCE_END } from './signals';
import { ancestors, lastCommas, lengthAndCommas, textOf } from './text-measure';
import type { Census, ElementInfo, GrabFlags } from './types';

export { CHAR_THRESHOLD };

/** What one grab chose: elements to render in document order, and descendants of them to leave out. */
export interface Grab {
  roots: Element[];
  removed: Set<Element>;
  /** Text length kept after cleaning. */
  length: number;
}

/**
 * Readability's grab, without mutating the DOM: paragraphs score their ancestors (commas, length),
 * candidates are damped by link density, the best one is widened to its parent when that scores well,
 * related siblings are merged, and the result is cleaned conditionally (conditional-cleaner.ts). What
 * tags, roles and class names say is in signals.ts.
 */
export function grabArticle(body: Element, flags: GrabFlags, isSkipped: (el: Element) => boolean, census?: Census): Grab {
  return new Grabber(body, flags, isSkipped, census).grab();
}

/** An open element of the measuring pass and what its subtree has counted so far. */
interface Frame {
  el: Element;
  /** The next child to visit. */
  i: number;
  text: number;
  link: number;
  commas: number;
  block: boolean;
  /** The inline run of text since the last block child, and its commas. */
  run: number;
  runCommas: number;
  /** With a census: the index of the subtree's first text in its list. */
  first: number;
}

function newFrame(el: Element, first: number): Frame {
  return { el, i: 0, text: 0, link: 0, commas: 0, block: false, run: 0, runCommas: 0, first };
}

function enterFrame(frame: Frame, el: Element, first: number): void {
  frame.first = first;
  frame.el = el;
  frame.i = 0;
  frame.text = 0;
  frame.link = 0;
  frame.commas = 0;
  frame.block = false;
  frame.run = 0;
  frame.runCommas = 0;
}

class Grabber {
  private readonly info = new Map<Element, ElementInfo>();
  private readonly scores = new Map<Element, number>();
  /** Elements excluded while scoring (unlikely candidates, never-content tags, hidden). */
  private readonly excluded = new Set<Element>();

  constructor(
    private readonly body: Element,
    private readonly flags: GrabFlags,
    private readonly isSkipped: (el: Element) => boolean,
    private readonly census: Census | undefined,
  ) {}

  grab(): Grab {
    this.measure();
    const top = this.pickTopCandidate();
    const roots = this.mergeSiblings(top);
    const removed = new Set<Element>(this.excluded);
    const cleaner = new ConditionalCleaner(this.flags, (el) => this.info.get(el), this.isSkipped, this.census);
    let length = 0;
    for (const root of roots) length += cleaner.clean(root, removed);
    return { roots, removed, length };
  }

  /** One post-order pass: text/link/comma counts per element, paragraph scores to ancestors. */
  private measure(): void {
    // The open elements, one frame per depth, reused (a frame is done with once its element is measured).
    const stack: Frame[] = [newFrame(this.body, 0)];
    // With a census, the next of its texts (the walk meets them in the same order, skipping those it leaves out).
    const census = this.census;
    let at = 0;
    let depth = 0;
    while (depth >= 0) {
      const frame = stack[depth];
      const children = frame.el.children;
      if (frame.i < children.length) {
        const child = children[frame.i++];
        if (typeOf(child) === 'text') {
          let len: number;
          let commas: number;
          if (census) {
            len = census.texts.lengths[at];
            commas = census.texts.commas[at];
            at++;
          } else {
            len = lengthAndCommas(textData(child));
            commas = lastCommas();
          }
          frame.text += len;
          frame.commas += commas;
          frame.run += len;
          frame.runCommas += commas;
        } else if (isElement(child)) {
          if (isExcluded(child, this.flags, this.isSkipped)) {
            this.excluded.add(child);
            if (census) at += census.counts.get(child)?.texts ?? 0;
          } else {
            const next = stack[++depth];
            if (next) enterFrame(next, child, at);
            else stack.push(newFrame(child, at));
          }
        }
        continue;
      }
      depth--;
      const el = frame.el;
      const isLink = el.name === 'a';
      const info: ElementInfo = {
        text: frame.text,
        link: isLink ? frame.text : frame.link,
        commas: frame.commas,
        blockDesc: frame.block,
        first: frame.first,
      };
      this.info.set(el, info);
      this.flushRun(frame);
      if (depth >= 0) {
        const parent = stack[depth];
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
  private flushRun(frame: Frame): void {
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
      const current = this.scores.get(node) ?? initialScore(node, this.flags);
      this.scores.set(node, current + score / divider);
      if (node === this.body) break;
      node = node.parent as Element | null;
    }
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
    // The five best scores, in the order a stable sort of all of them would give (ties in the order first scored):
    // each candidate is placed after those scoring as well, and the rest are never sorted.
    const topFive: { el: Element; score: number }[] = [];
    for (const el of this.scores.keys()) {
      const score = this.finalScore(el);
      if (topFive.length === 5 && !(score > topFive[4].score)) continue;
      let at = topFive.length;
      while (at > 0 && topFive[at - 1].score < score) at--;
      topFive.splice(at, 0, { el, score });
      if (topFive.length > 5) topFive.pop();
    }
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
}
