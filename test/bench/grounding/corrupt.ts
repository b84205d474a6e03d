/**
 * The corrupted answers of bench:grounding: about 10 % of a corpus's values, chosen by a seeded generator, replaced
 * in the ways a model gets a value wrong (docs/provenance.md "Benchmark"): a digit changed, a name swapped for
 * another real name, a date shifted, a value from another page. Every corruption is recorded with its path, so
 * the score knows which values of an answer are true and which are not.
 */
import { seeded } from '../learned/split';

export type CorruptionKind = 'digit' | 'name' | 'date' | 'other_page';

export interface Corruption {
  path: string;
  kind: CorruptionKind;
  truth: string;
  value: string;
}

export interface CorpusPage {
  path: string;
  truth: Record<string, unknown>;
}

/** One text leaf of an answer: its path (`author[1]`), field and value. */
interface TextLeaf {
  page: number;
  path: string;
  field: string;
  index?: number;
  value: string;
}

const SHARE = 0.1;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH = new RegExp(`\\b(${MONTHS.join('|')}|${MONTHS.map((m) => m.slice(0, 3)).join('|')})\\b`);
const YEAR = /\b(1[89]\d\d|20\d\d)\b/;
/** A capitalised word inside a sentence (not its first word): a name, most of the time. */
const NAME_WORD = /(?<=[a-z,] )[A-Z][a-z]{3,}\b/g;

/**
 * The corrupted answers of `pages` (same order) and what was corrupted. `nameFields` hold person names (swapped
 * for a name from another page); every other text field gets the other kinds.
 */
export function corruptCorpus(
  pages: CorpusPage[],
  nameFields: string[],
  seed: number,
): { answers: Array<Record<string, unknown>>; corruptions: Map<string, Corruption[]> } {
  const next = seeded(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(next() * items.length)];
  const leaves: TextLeaf[] = pages.flatMap((page, i) => textLeaves(page.truth, i));
  const answers = pages.map((p) => structuredClone(p.truth));
  const corruptions = new Map<string, Corruption[]>();
  const byField = new Map<string, TextLeaf[]>();
  for (const leaf of leaves) byField.set(leaf.field, [...(byField.get(leaf.field) ?? []), leaf]);
  const count = Math.round(leaves.length * SHARE);
  const chosen = new Set<number>();
  while (chosen.size < Math.min(count, leaves.length)) chosen.add(Math.floor(next() * leaves.length));
  for (const at of [...chosen].sort((a, b) => a - b)) {
    const leaf = leaves[at];
    const others = (byField.get(leaf.field) ?? []).filter((o) => o.page !== leaf.page && o.value !== leaf.value);
    const kinds: Array<() => Corruption | undefined> = [];
    if (nameFields.includes(leaf.field)) kinds.push(() => fromOtherPage(leaf, others, pick, 'name'));
    else {
      kinds.push(() => changeDigit(leaf, next));
      kinds.push(() => shiftDate(leaf, next));
      kinds.push(() => fromOtherPage(leaf, others, pick, 'other_page'));
      kinds.push(() => swapName(leaf, leaves, pick));
    }
    // The first kind drawn that applies to the value (a value without digits cannot have one changed).
    const order = shuffle(kinds, next);
    let corruption: Corruption | undefined;
    for (const kind of order) if ((corruption = kind())) break;
    if (!corruption) continue;
    set(answers[leaf.page], leaf, corruption.value);
    corruptions.set(pages[leaf.page].path, [...(corruptions.get(pages[leaf.page].path) ?? []), corruption]);
  }
  return { answers, corruptions };
}

function textLeaves(truth: Record<string, unknown>, page: number): TextLeaf[] {
  const out: TextLeaf[] = [];
  for (const [field, value] of Object.entries(truth)) {
    if (typeof value === 'string' && value.trim() !== '') out.push({ page, path: field, field, value });
    if (Array.isArray(value))
      value.forEach((item, index) => {
        if (typeof item === 'string' && item.trim() !== '') out.push({ page, path: `${field}[${index}]`, field, index, value: item });
      });
  }
  return out;
}

function set(answer: Record<string, unknown>, leaf: TextLeaf, value: string): void {
  if (leaf.index === undefined) answer[leaf.field] = value;
  else (answer[leaf.field] as unknown[])[leaf.index] = value;
}

/** One digit of the value changed to another digit. */
function changeDigit(leaf: TextLeaf, next: () => number): Corruption | undefined {
  const digits = [...leaf.value].map((c, i) => (c >= '0' && c <= '9' ? i : -1)).filter((i) => i >= 0);
  if (digits.length === 0) return undefined;
  const at = digits[Math.floor(next() * digits.length)];
  const old = Number(leaf.value[at]);
  const digit = (old + 1 + Math.floor(next() * 9)) % 10;
  return { path: leaf.path, kind: 'digit', truth: leaf.value, value: `${leaf.value.slice(0, at)}${digit}${leaf.value.slice(at + 1)}` };
}

/** The value's month moved by one to five months, or else its year by one to three years. */
function shiftDate(leaf: TextLeaf, next: () => number): Corruption | undefined {
  const month = MONTH.exec(leaf.value);
  if (month) {
    const index = MONTHS.findIndex((m) => m.startsWith(month[1].slice(0, 3)));
    const shifted = MONTHS[(index + 1 + Math.floor(next() * 5)) % 12];
    const name = month[1].length === 3 ? shifted.slice(0, 3) : shifted;
    return { path: leaf.path, kind: 'date', truth: leaf.value, value: leaf.value.replace(MONTH, name) };
  }
  const year = YEAR.exec(leaf.value);
  if (!year) return undefined;
  const shifted = Number(year[1]) + (next() < 0.5 ? -1 : 1) * (1 + Math.floor(next() * 3));
  return { path: leaf.path, kind: 'date', truth: leaf.value, value: leaf.value.replace(YEAR, String(shifted)) };
}

/** The same field's value on another page (a name for a name field). */
function fromOtherPage(leaf: TextLeaf, others: TextLeaf[], pick: <T>(items: T[]) => T, kind: CorruptionKind): Corruption | undefined {
  if (others.length === 0) return undefined;
  return { path: leaf.path, kind, truth: leaf.value, value: pick(others).value };
}

/** A name in a long text (a capitalised word inside a sentence) swapped for one from another page's text. */
function swapName(leaf: TextLeaf, leaves: TextLeaf[], pick: <T>(items: T[]) => T): Corruption | undefined {
  const names = [...leaf.value.matchAll(NAME_WORD)];
  if (names.length === 0) return undefined;
  const target = pick(names);
  const pool = leaves.filter((l) => l.page !== leaf.page && l.field === leaf.field);
  for (let tries = 0; tries < 20 && pool.length > 0; tries++) {
    const candidates = [...pick(pool).value.matchAll(NAME_WORD)].map((m) => m[0]).filter((n) => !leaf.value.includes(n));
    if (candidates.length === 0) continue;
    const name = pick(candidates);
    const value = `${leaf.value.slice(0, target.index)}${name}${leaf.value.slice(target.index + target[0].length)}`;
    return { path: leaf.path, kind: 'name', truth: leaf.value, value };
  }
  return undefined;
}

function shuffle<T>(items: T[], next: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
