/**
 * Bounds on the grounding work of one page (docs/provenance.md "Limits"): whatever the page, the schema or the
 * model's answer, a page costs at most this much, and a value the check gave up on is `grounded: null` with the
 * reason.
 */
export interface GroundingLimits {
  /** Characters of text indexed per page (the text sent to the model and the page title); the rest is not searched. */
  maxIndexedChars: number;
  /** Attribute values indexed per page (`content`, `alt`, `title`, `value`, `datetime`; `href`/`src` as URLs). */
  maxAttributes: number;
  /** Characters kept of one attribute value. */
  maxAttributeChars: number;
  /** Longer values (after entity decoding) are not checked: `value_too_long`. */
  maxValueChars: number;
  /** Leaves listed in `metadata.fields`; the rest are counted in `fields_omitted`. */
  maxListedLeaves: number;
  /** Leaves checked per page; the rest are `leaf_limit`. */
  maxCheckedLeaves: number;
  /** Token comparisons per page across all searches; past it, values are `budget_exhausted`. */
  workBudget: number;
}

export const GROUNDING_LIMITS: Readonly<GroundingLimits> = Object.freeze({
  maxIndexedChars: 2_000_000,
  maxAttributes: 20_000,
  maxAttributeChars: 2_000,
  maxValueChars: 100_000,
  maxListedLeaves: 5_000,
  maxCheckedLeaves: 2_000,
  workBudget: 10_000_000,
});
