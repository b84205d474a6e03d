import { groundValue, type LeafKind } from './ground-value';
import { GroundingIndex } from './grounding-index';
import { GROUNDING_LIMITS, type GroundingLimits } from './grounding-limits';

/** A loaded page as grounding needs it: its text as a model gets it, its title and its attribute values. */
export interface GroundingPage {
  url: string;
  /** The page's markdown (or text) as a full model call sends it. */
  text: string;
  title?: string;
  attributes?: ReadonlyArray<{ name: string; value: string }>;
}

/**
 * The indexes of one page, built when first needed: the page as a full model call sees it (what learned programs'
 * values are checked against) and, for each model call, the text that call was given (an excerpt, or the page
 * cut to the model's context). The same attribute values count for every one of them.
 */
export class PageGrounding {
  private pageIndex?: GroundingIndex;
  private readonly sentIndexes = new Map<string, GroundingIndex>();

  constructor(
    readonly page: GroundingPage,
    readonly limits: GroundingLimits = GROUNDING_LIMITS,
  ) {}

  get pageText(): GroundingIndex {
    return (this.pageIndex ??= this.build(this.page.text, 'page'));
  }

  /** The index of what a model call was given: the page's own index when it was the whole page. */
  sent(text: string, kind: 'page' | 'excerpt'): GroundingIndex {
    if (kind === 'page' && text === this.page.text) return this.pageText;
    const key = `${kind}:${text}`;
    let index = this.sentIndexes.get(key);
    if (!index) this.sentIndexes.set(key, (index = this.build(text, kind)));
    return index;
  }

  /** Whether a learned rule's value is on the page (the drift guard, docs/provenance.md "Learned programs"). */
  grounded(value: unknown, kind: LeafKind): boolean | null {
    const values = Array.isArray(value) ? value : [value];
    let verdict: boolean | null = null;
    for (const item of values) {
      if (typeof item !== 'string' && typeof item !== 'number') continue;
      if (typeof item === 'string' && item.trim() === '') continue;
      const one = groundValue(this.pageText, item, kind, this.page.url).grounded;
      if (one === false) return false;
      if (one === true) verdict = true;
    }
    return verdict;
  }

  private build(text: string, kind: 'page' | 'excerpt'): GroundingIndex {
    return new GroundingIndex(
      { text: { in: kind, text }, title: this.page.title, attributes: this.page.attributes, baseUrl: this.page.url },
      this.limits,
    );
  }
}
