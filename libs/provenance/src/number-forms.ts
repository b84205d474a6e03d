/**
 * Number formats (docs/provenance.md "Numbers"): `1,299.00`, `1.299,00`, `1 299,00`, `1'299.00` and `1299` are one
 * number. A text of digit groups joined by single separators has every reading the separators allow: a dot or a
 * comma before the last group is a decimal mark or (before exactly three digits) a thousands separator; spaces,
 * no-break spaces and apostrophes only separate thousands. Readings are canonical decimal strings (no sign, no
 * leading or trailing zeros): `1299`, `1299.5`.
 */

/** Characters that may join the digit groups of one number (a thin space, no-break spaces and apostrophes included). */
export const NUMBER_SEPARATORS = new Set(['.', ',', ' ', '\u00a0', '\u202f', '\u2009', "'", '\u2019']);

const DECIMAL_MARKS = new Set(['.', ',']);

/** `int` and `frac` as the canonical decimal string. */
export function canonicalNumber(int: string, frac = ''): string {
  let i = 0;
  while (i < int.length - 1 && int[i] === '0') i++;
  let f = frac.length;
  while (f > 0 && frac[f - 1] === '0') f--;
  const whole = int.slice(i) || '0';
  return f > 0 ? `${whole}.${frac.slice(0, f)}` : whole;
}

/** The integer a reading rounds to (half up), for integer fields: the model may round `1,299.99` to 1300. */
export function roundedReading(reading: string): string {
  const dot = reading.indexOf('.');
  if (dot < 0) return reading;
  const int = reading.slice(0, dot);
  return reading.charCodeAt(dot + 1) >= 53 ? (BigInt(int) + 1n).toString() : int;
}

function thousandsKind(sep: string): string {
  return sep === '\u2019' ? "'" : sep === '\u00a0' || sep === '\u202f' || sep === '\u2009' ? ' ' : sep;
}

/**
 * Readings of digit groups joined by `seps` (`groups.length === seps.length + 1`, every separator one of
 * NUMBER_SEPARATORS). Empty when no reading is consistent (`1.2.3`).
 */
export function numberReadings(groups: string[], seps: string[]): string[] {
  if (seps.length === 0) return [canonicalNumber(groups[0])];
  const out: string[] = [];
  const last = seps[seps.length - 1];
  const grouped = (upTo: number, kind: string) =>
    groups[0].length <= 3 &&
    seps.slice(0, upTo).every((s) => thousandsKind(s) === kind) &&
    groups.slice(1, upTo + 1).every((g) => g.length === 3);
  // The last separator a decimal mark, the ones before it thousands separators of another kind.
  if (DECIMAL_MARKS.has(last)) {
    const before = seps.length - 1;
    const kind = before > 0 ? thousandsKind(seps[0]) : '';
    if (before === 0 || (kind !== last && grouped(before, kind)))
      out.push(canonicalNumber(groups.slice(0, -1).join(''), groups[groups.length - 1]));
  }
  // Every separator a thousands separator.
  if (grouped(seps.length, thousandsKind(seps[0]))) out.push(canonicalNumber(groups.join('')));
  return [...new Set(out)];
}

/** A JavaScript number as its canonical reading (sign dropped, no exponent). */
export function readingOf(value: number): string | undefined {
  if (!Number.isFinite(value)) return undefined;
  const plain = Math.abs(value).toLocaleString('en-US', { useGrouping: false, maximumFractionDigits: 20 });
  const [int, frac = ''] = plain.split('.');
  return canonicalNumber(int, frac);
}

/**
 * A text that is one number, possibly with currency symbols or codes around it (`$1,299.00`, `1.299,00 EUR`,
 * `USD 12`): its readings. Undefined when the text is anything else.
 */
export function numberTextReadings(words: { keys: string[]; starts: number[]; ends: number[] }, text: string): string[] | undefined {
  const groups: string[] = [];
  const seps: string[] = [];
  let lastEnd = -1;
  for (let i = 0; i < words.keys.length; i++) {
    const key = words.keys[i];
    if (CURRENCY_WORDS.has(key)) continue;
    if (!/^[0-9]+$/.test(key)) return undefined;
    if (groups.length > 0) {
      const gap = text.slice(lastEnd, words.starts[i]).normalize('NFKC');
      const sep = gap.length === 1 ? gap : gap === '' ? '' : undefined;
      if (sep === undefined || (sep !== '' && !NUMBER_SEPARATORS.has(sep)) || sep === '') return undefined;
      seps.push(sep);
    }
    groups.push(key);
    lastEnd = words.ends[i];
  }
  return groups.length > 0 ? numberReadings(groups, seps) : undefined;
}

/** Currency codes and words that may stand around a number without changing it. */
export const CURRENCY_WORDS = new Set([
  'usd',
  'us',
  'eur',
  'gbp',
  'jpy',
  'chf',
  'cad',
  'aud',
  'nzd',
  'cny',
  'rmb',
  'inr',
  'rub',
  'brl',
  'mxn',
  'sek',
  'nok',
  'dkk',
  'pln',
  'czk',
  'huf',
  'try',
  'zar',
  'krw',
  'sgd',
  'hkd',
  'dollar',
  'dollars',
  'euro',
  'euros',
]);

/** The digits of an identifier written in groups (`978-0-316-12558-1`, `(555) 123-4567`): at least this many. */
export const MIN_IDENTIFIER_DIGITS = 5;

/** Characters that may join the digit groups of an identifier (at most two between two groups). */
export const IDENTIFIER_SEPARATORS = new Set(['-', ' ', '.', '/', '(', ')', '+', '\u00a0', '\u2010', '\u2011', '\u2013']);

/** The digits of a value that is an identifier in digit groups, or undefined. */
export function identifierDigits(text: string): string | undefined {
  let digits = '';
  for (const ch of text.normalize('NFKC').trim()) {
    if (ch >= '0' && ch <= '9') digits += ch;
    else if (!IDENTIFIER_SEPARATORS.has(ch)) return undefined;
  }
  return digits.length >= MIN_IDENTIFIER_DIGITS ? digits : undefined;
}
