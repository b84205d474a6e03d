import type { Element } from '../dom';

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
}

export type InfoOf = (el: Element) => ElementInfo | undefined;
