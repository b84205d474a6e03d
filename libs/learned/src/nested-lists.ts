import type { Element } from '@app/content';
import { listCandidatesWithin, type Candidate } from './candidates';
import { select } from './dom';
import type { LearningSample, RuleResult } from './learner';
import type { LearnableField } from './values';

/*
 * Lists nested in the items of a learned list of objects (docs/long-lists.md "Learned lists"): a product's `tags`, its
 * `variants: [{name, price}]`. Their rules are proposed here and checked item by item by the learner (learner.ts),
 * read inside each item as its scalar properties are (program.ts `runItemsRule`).
 */

/** Items of the first learning page whose elements propose a nested list's rules inside the item. */
const PROPOSING_ITEMS = 3;

/** The model's items of a list of objects on a sample (objects only). */
export function modelItems(sample: LearningSample, field: LearnableField): Array<Record<string, unknown>> {
  const value = sample.output[field.name];
  if (!Array.isArray(value)) return [];
  return value.filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null && !Array.isArray(item));
}

/**
 * Candidate rules for `property`, a list inside each item of `field` (items picked by `container`). First the rule
 * learned page-wide from every item's nested values one after another (the tags of all products, in order: a
 * selector that picks one tag element each, or one variant element each with its properties read inside it);
 * then, for a list of scalars, the rules the first items' elements propose (their place in the item, a split of one
 * element's text). The learner keeps the first that gives every item its own list; none: the field stays the model's.
 */
export function nestedCandidates(
  field: LearnableField,
  property: LearnableField,
  container: string,
  relevant: LearningSample[],
  learn: (field: LearnableField, samples: LearningSample[]) => RuleResult,
): { candidates: Candidate[]; tried: number } {
  const flattened = relevant.map((s) => ({
    page: s.page,
    output: {
      [property.name]: modelItems(s, field).flatMap((item) =>
        Array.isArray(item[property.name]) ? (item[property.name] as unknown[]) : [],
      ),
    },
  }));
  const pageWide = learn(property, flattened);
  const candidates: Candidate[] = pageWide.rule ? [{ rule: pageWide.rule, score: -1 }] : [];
  if (!property.items) {
    const anchor = relevant.find((s) => modelItems(s, field).length > 0);
    const elements: Element[] = anchor ? select(container, anchor.page.doc) : [];
    for (const [n, values] of (anchor ? modelItems(anchor, field) : []).slice(0, PROPOSING_ITEMS).entries()) {
      const el = elements[n];
      if (el) candidates.push(...listCandidatesWithin(property, el, values[property.name], anchor!.page.url));
    }
  }
  return { candidates, tried: pageWide.candidates };
}
