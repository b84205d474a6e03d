import type { Tokens } from './text-tokens';

/**
 * Common date forms (docs/provenance.md "Dates"), found in a run of words: `2024-03-05`, `2024/03/05`,
 * `05.03.2024` and `03/05/2024` (both readings when day and month could be either), `March 5, 2024`,
 * `5 March 2024`, `5th of March 2024`, `Mar. 5 2024`, `2024年3月5日`, and a month with its year (`March 2024`).
 * Month names in English, German, French and Spanish, full or abbreviated. A found date is a key: `d:2024-03-05`
 * for a day, `m:2024-03` for a month. Two-digit years are not read (they are ambiguous).
 */
export interface DateSpan {
  key: string;
  /** Word indices of the first and last word of the date. */
  first: number;
  last: number;
}

// A Map, not an object: a page's word `constructor` is not a month (and a lookup per word stays cheap).
const MONTHS = new Map<string, number>();
const NAMES = [
  ['january', 'jan', 'januar', 'janvier', 'enero', 'ene', 'jänner'],
  ['february', 'feb', 'februar', 'février', 'fevrier', 'febrero', 'févr'],
  ['march', 'mar', 'märz', 'maerz', 'mars', 'marzo', 'mär'],
  ['april', 'apr', 'avril', 'abril', 'abr', 'avr'],
  ['may', 'mai', 'mayo'],
  ['june', 'jun', 'juni', 'juin', 'junio'],
  ['july', 'jul', 'juli', 'juillet', 'julio', 'juil'],
  ['august', 'aug', 'août', 'aout', 'agosto', 'ago'],
  ['september', 'sep', 'sept', 'septembre', 'septiembre', 'set'],
  ['october', 'oct', 'oktober', 'okt', 'octobre', 'octubre'],
  ['november', 'nov', 'novembre', 'noviembre'],
  ['december', 'dec', 'dezember', 'dez', 'décembre', 'decembre', 'diciembre', 'dic', 'déc'],
];
NAMES.forEach((names, index) => {
  for (const name of names) MONTHS.set(name, index + 1);
});

const pad = (n: number) => String(n).padStart(2, '0');

function dayKey(year: number, month: number, day: number): string | undefined {
  if (month < 1 || month > 12 || day < 1 || day > 31) return undefined;
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCMonth() !== month - 1) return undefined; // 31 April
  return `d:${year}-${pad(month)}-${pad(day)}`;
}

/** Whether a word starts with an ASCII digit: every numeric part of a date does (most words do not, cheaply told). */
function digitFirst(key: string | undefined): key is string {
  if (key === undefined) return false;
  const c = key.charCodeAt(0);
  return c >= 48 && c <= 57;
}

function year(key: string | undefined): number | undefined {
  return digitFirst(key) && /^[12][0-9]{3}$/.test(key) ? Number(key) : undefined;
}

function small(key: string | undefined, max: number): number | undefined {
  return digitFirst(key) && /^[0-9]{1,2}$/.test(key) && Number(key) >= 1 && Number(key) <= max ? Number(key) : undefined;
}

/** A day written `5`, `05`, `5th`, `1st`, `2nd`, `3rd`. */
function dayOf(key: string | undefined): number | undefined {
  const m = !digitFirst(key) ? null : /^([0-9]{1,2})(st|nd|rd|th)?$/.exec(key);
  return m && Number(m[1]) >= 1 && Number(m[1]) <= 31 ? Number(m[1]) : undefined;
}

/**
 * Dates in `words` (of `text`), each with its key and word span; several keys may share a span (`03/05/2024`).
 * Each word starts at most a handful of patterns, so the scan is linear.
 */
export function findDates(words: Tokens, text: string): DateSpan[] {
  const out: DateSpan[] = [];
  const { keys } = words;
  // The text between word i and the next; long gaps are never part of a date, so only short ones are read.
  const gap = (i: number) =>
    i + 1 < keys.length && words.starts[i + 1] - words.ends[i] <= 3 ? text.slice(words.ends[i], words.starts[i + 1]) : '\u0000';
  const spaced = (i: number) => /^[\s,.]{1,3}$/.test(gap(i));
  const add = (key: string | undefined, first: number, last: number) => {
    if (key) out.push({ key, first, last });
  };
  // Month words that are part of a day (5 March 2024): their year does not make a month of its own.
  const inDay = new Set<number>();
  for (let i = 0; i < keys.length; i++) {
    const k0 = keys[i];
    // Every date starts with a number or a month name: most words are neither.
    const month0 = MONTHS.get(k0);
    if (month0 === undefined && !digitFirst(k0)) continue;
    const k1 = keys[i + 1];
    const k2 = keys[i + 2];
    // 2024-03-05, 2024/03/05, 2024.03.05
    const y0 = year(k0);
    if (y0 !== undefined && k1 !== undefined && k2 !== undefined && /^[-/.]$/.test(gap(i)) && gap(i + 1) === gap(i)) {
      const m = small(k1, 12);
      const d = small(k2, 31);
      if (m !== undefined && d !== undefined) add(dayKey(y0, m, d), i, i + 2);
    }
    // 2024年3月5日
    if (y0 !== undefined && k1 === '年' && keys[i + 3] === '月' && keys[i + 5] === '日') {
      const m = small(k2, 12);
      const d = small(keys[i + 4], 31);
      if (m !== undefined && d !== undefined) add(dayKey(y0, m, d), i, i + 5);
    }
    // 05.03.2024 / 03/05/2024: day-month and month-day where both fit
    const a = small(k0, 31);
    const b = small(k1, 31);
    const y2 = year(k2);
    if (a !== undefined && b !== undefined && y2 !== undefined && /^[-/.]$/.test(gap(i)) && gap(i + 1) === gap(i)) {
      if (b <= 12) add(dayKey(y2, b, a), i, i + 2);
      if (a <= 12 && a !== b) add(dayKey(y2, a, b), i, i + 2);
    }
    if (month0 !== undefined) {
      // March 5, 2024 / Mar. 5th 2024
      const d = dayOf(k1);
      const y = year(k2);
      if (d !== undefined && y !== undefined && spaced(i) && spaced(i + 1)) add(dayKey(y, month0, d), i, i + 2);
      // March 2024
      const ym = year(k1);
      if (ym !== undefined && spaced(i) && !inDay.has(i)) add(`m:${ym}-${pad(month0)}`, i, i + 1);
    }
    // 5 March 2024 / 5. März 2024 / 5th of March 2024
    const d0 = dayOf(k0);
    if (d0 !== undefined) {
      const of = k1 === 'of' || k1 === 'de';
      const mi = of ? i + 2 : i + 1;
      const month = MONTHS.get(keys[mi]);
      const y = year(keys[mi + 1]);
      if (month !== undefined && y !== undefined && spaced(i) && (!of || spaced(i + 1)) && spaced(mi)) {
        inDay.add(mi);
        add(dayKey(y, month, d0), i, mi + 1);
      }
    }
  }
  return out;
}

/**
 * The keys a date value of a `date` or `date-time` field is looked up by: its day, and for the first of a month
 * also the month (`2010-06-01` read from `June 2010`). Undefined when the value is not an ISO date.
 */
export function isoDateKeys(value: string): string[] | undefined {
  const m = /^([12][0-9]{3})-([0-9]{2})-([0-9]{2})(?:$|T)/.exec(value.trim());
  if (!m) return undefined;
  const key = dayKey(Number(m[1]), Number(m[2]), Number(m[3]));
  if (!key) return undefined;
  return m[3] === '01' ? [key, `m:${m[1]}-${m[2]}`] : [key];
}
