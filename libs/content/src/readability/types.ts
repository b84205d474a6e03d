import type { Element } from '../dom';
import type { CensusLists, TextCount } from '../structure/text-census';

/** What one grab may do; main-content.ts relaxes them attempt by attempt when too little text is found. */
export interface GrabFlags {
  /** Leave out elements whose class or id reads as page furniture (readability's "unlikely candidates"). */
  stripUnlikely: boolean;
  /** Let class and id names raise or lower a candidate's score. */
  weightClasses: boolean;
  /** Drop link-heavy, image-heavy or form-like blocks from the chosen roots. */
  cleanConditionally: boolean;
}

/** One element's measures, taken in the grab's single post-order pass. */
export interface ElementInfo {
  /** Whitespace-collapsed text length of the subtree. */
  text: number;
  /** Text length inside links. */
  link: number;
  commas: number;
  /** Has p/div/table/list/... descendants (readability's "div that is not a paragraph"). */
  blockDesc: boolean;
  /** With a census: the index of the first of the subtree's texts in its list. */
  first?: number;
}

/**
 * The body's text census (structure/text-census.ts) under the grab's own skip rule, its texts listed: the grab's
 * measure and its cleaning read each text's length and commas there, and step over what they leave out by its
 * count of texts, instead of measuring the same texts again.
 */
export interface Census {
  counts: ReadonlyMap<Element, TextCount>;
  texts: CensusLists;
}

export type InfoOf = (el: Element) => ElementInfo | undefined;
