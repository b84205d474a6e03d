import { isElement, type Element } from '@app/content';
import { classList, type PageDom } from './dom';
import { isSelectableClass } from './naming';

/** One compound selector: tag, optional id, classes. */
interface Compound {
  tag: string;
  id?: string;
  classes: string[];
}

function compoundOf(el: Element, withId: boolean): Compound {
  const id = el.attribs.id;
  return {
    tag: el.name,
    id: withId && id && /^[A-Za-z][\w-]*$/.test(id) ? id : undefined,
    classes: classList(el).filter(isSelectableClass),
  };
}

function render(c: Compound): string {
  return `${c.tag}${c.id ? `#${c.id}` : ''}${c.classes.map((x) => `.${x}`).join('')}`;
}

function matches(el: Element, c: Compound): boolean {
  if (el.name !== c.tag) return false;
  if (c.id && el.attribs.id !== c.id) return false;
  if (c.classes.length === 0) return true;
  const own = new Set((el.attribs.class ?? '').split(/\s+/));
  return c.classes.every((x) => own.has(x));
}

function parentElement(el: Element): Element | undefined {
  return el.parent && isElement(el.parent) ? el.parent : undefined;
}

/** `tag.class1.class2` (plus `#id` when asked and safe), using only classes that need no escaping. */
export function simpleSelector(el: Element, withId = false): string {
  return render(compoundOf(el, withId));
}

/**
 * A selector for a group of members: the shortest of `member`, `parent > member`,
 * `grandparent parent > member` that matches exactly the members; else the one that matches all of
 * them with the fewest extras. Checked with a tiny matcher over the tag index (css-select per
 * candidate would walk the whole document each time).
 */
export function groupSelector(members: Element[], dom: PageDom): string {
  const first = members[0];
  const own = compoundOf(first, false);
  const parent = parentElement(first);
  const grand = parent ? parentElement(parent) : undefined;
  const candidates: Array<{ text: string; test: (el: Element) => boolean }> = [{ text: render(own), test: (el) => matches(el, own) }];
  if (parent) {
    const p = compoundOf(parent, true);
    candidates.push({
      text: `${render(p)} > ${render(own)}`,
      test: (el) => {
        const pe = parentElement(el);
        return matches(el, own) && pe !== undefined && matches(pe, p);
      },
    });
    if (grand && grand.name !== 'html') {
      const g = compoundOf(grand, true);
      candidates.push({
        text: `${render(g)} ${render(p)} > ${render(own)}`,
        test: (el) => {
          const pe = parentElement(el);
          if (!matches(el, own) || !pe || !matches(pe, p)) return false;
          for (let a = parentElement(pe); a; a = parentElement(a)) if (matches(a, g)) return true;
          return false;
        },
      });
    }
  }
  const wanted = new Set(members);
  const pool = dom.byTag.get(first.name) ?? members;
  let best = candidates[candidates.length - 1].text;
  let bestExtra = Infinity;
  for (const candidate of candidates) {
    let hits = 0;
    let extra = 0;
    for (const el of pool) {
      if (!candidate.test(el)) continue;
      if (wanted.has(el)) hits++;
      else extra++;
    }
    if (hits !== members.length) continue;
    if (extra === 0) return candidate.text;
    if (extra < bestExtra) {
      best = candidate.text;
      bestExtra = extra;
    }
  }
  return best;
}
