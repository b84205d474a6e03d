import { findFirst, isElement, walk, type AnyNode, type Element } from '../dom';
import type { TextCount } from './text-census';

/**
 * What a page asks of its reader rather than tells them: a newsletter sign-up ("Get the newsletter", an email
 * field and "Subscribe"), a back-in-stock alert, a call to action ("Ready to start? Book a demo"). Readability's
 * grab keeps them when they sit inside the body of the content (between two paragraphs, under the last one),
 * and a site builder's section keeps them in a region. Two structures, left out of the content (`roots`):
 * - a short block (CTA_MAX_TEXT characters at most) whose class or id names it a call to action or a sign-up;
 *   not a name MIN_RUN blocks share (a row of offer cards, each with its action), nor one that names a section
 *   (`cta-section`: a landing page's closing pitch is its content);
 * - a form asking only for an email address (no message field: that is a comment or contact form), with the
 *   short box around it that says what it signs up for (its heading, its one line of pitch), never past the
 *   page's `<h1>` (a landing page's first screen is its title, its pitch and a sign-up form).
 */
export function signUps(
  roots: readonly AnyNode[],
  counts: ReadonlyMap<Element, TextCount>,
  isSkipped: (el: Element) => boolean,
  isRemoved: (el: Element) => boolean = () => false,
): Set<Element> {
  const out = new Set<Element>();
  const rootSet = new Set(roots);
  // The blocks named so, outermost first; a name shared by MIN_RUN or more is a run of cards (offers, services), kept.
  const named: { el: Element; names: string[] }[] = [];
  const seen = new Map<string, number>();
  for (const root of roots) {
    if (!isElement(root)) continue;
    // A form the cleaning already left out still marks the box around it (its heading and pitch are shown).
    walk(root, (el) => {
      if (isSkipped(el)) return false;
      if (el.name === 'form' && isEmailOnlyForm(el)) {
        out.add(signUpBox(el, counts, rootSet));
        return false;
      }
      return true;
    });
    walk(root, (el) => {
      if (isSkipped(el) || isRemoved(el)) return false;
      const names = textOf(el, counts) > CTA_MAX_TEXT ? [] : signUpNames(el);
      if (names.length > 0) {
        named.push({ el, names });
        for (const name of names) seen.set(name, (seen.get(name) ?? 0) + 1);
        return false;
      }
      return true;
    });
  }
  for (const { el, names } of named) {
    if (names.every((name) => (seen.get(name) ?? 0) < MIN_RUN)) out.add(el);
  }
  return out;
}

/** A call to action or a sign-up is a heading, a line and a button: more text than this is a section of the page. */
const CTA_MAX_TEXT = 300;
/** Blocks sharing a name this many times are a row of cards (two are a page's top and bottom sign-up). */
const MIN_RUN = 3;
/** The box around a sign-up form holds its heading and a line of pitch, no more (characters). */
const BOX_MAX_TEXT = 300;
/** Class or id tokens that name a call to action or a sign-up. */
const SIGN_UP_NAME = /^(?:.*[-_])?(?:cta|ctas|newsletters?|subscribe|signup|sign-up|optin|opt-in)(?:[-_].*)?$/i;
/** What every token SIGN_UP_NAME reads holds. */
const SIGN_UP_WORD = /cta|newsletter|subscribe|sign-?up|opt-?in/i;
const SECTION_NAME = /section/i;
const EMAIL = /e-?mail/i;
const TEXT_INPUTS = new Set(['', 'text', 'email']);
/** A sign-up asks for an email address and maybe a name; a form with more fields is an order or a search. */
const MAX_TEXT_INPUTS = 3;

/** The class and id tokens of `el` that name a call to action or a sign-up. */
function signUpNames(el: Element): string[] {
  // Most elements have no name that holds one of the words at all: their names are not split.
  const { class: cls, id } = el.attribs;
  if (!((cls !== undefined && SIGN_UP_WORD.test(cls)) || (id !== undefined && SIGN_UP_WORD.test(id)))) return [];
  const names = `${el.attribs.class ?? ''} ${el.attribs.id ?? ''}`.split(/\s+/).filter((name) => name !== '' && SIGN_UP_NAME.test(name));
  // A block named a section of the page (`cta-section`) is one: a landing page's closing pitch is its content.
  return names.some((name) => SECTION_NAME.test(name)) ? [] : names;
}

function isEmailOnlyForm(form: Element): boolean {
  let email = false;
  let textInputs = 0;
  let message = false;
  walk(form, (el) => {
    if (el.name === 'textarea') message = true;
    if (el.name === 'input') {
      const type = (el.attribs.type ?? '').toLowerCase();
      if (TEXT_INPUTS.has(type)) textInputs++;
      if (
        type === 'email' ||
        (TEXT_INPUTS.has(type) && EMAIL.test(`${el.attribs.name ?? ''} ${el.attribs.id ?? ''} ${el.attribs.placeholder ?? ''}`))
      )
        email = true;
    }
    return true;
  });
  return email && !message && textInputs <= MAX_TEXT_INPUTS;
}

/** The form and the short blocks around it, up to (not including) a root of the content. */
function signUpBox(form: Element, counts: ReadonlyMap<Element, TextCount>, roots: ReadonlySet<AnyNode>): Element {
  let box = form;
  for (let parent = box.parent; parent && isElement(parent) && !roots.has(parent); parent = parent.parent) {
    // Not past the page's title: a landing page's first screen is its title, its pitch and a sign-up form.
    if (textOf(parent, counts) > BOX_MAX_TEXT || findFirst(parent, 'h1')) break;
    box = parent;
  }
  return box;
}

function textOf(el: Element, counts: ReadonlyMap<Element, TextCount>): number {
  return counts.get(el)?.text ?? 0;
}
