/**
 * The record-value guard of `dedupe: near` (docs/dedup.md "Different records are never merged"): two pages of one
 * template with different values (two SKUs of one product page, two products of one shop) can be as alike as a copy
 * with a changed date, so a near candidate is a copy only when the values that identify a record agree. A page's
 * values are computed once, beside its fingerprint, and stored in its index record as one short string:
 * - its **values**: the number-bearing tokens of its text (prices, item numbers, ratings, quantities, codes with digits),
 *   once dates and times are set aside (ISO and numeric dates, clock times, "2 hours ago", a year or a day next to a
 *   month's name, "© 2026") and so are link targets and opaque hex ids (session ids, hashes); each occurrence of one with 3
 *   digits or more counts (a value shown twice is two values: `1628` and `1628#2`); kept as a bottom-k sketch of their hashes (the VALUES_KEPT
 *   lowest), so a record stays small on a page of tables; a page with more keeps beside it a digest of all of them in
 *   BUCKETS buckets (by hash): each bucket's count and the sum of its hashes, so a value replaced anywhere on the page
 *   is still seen (below);
 * - its **headings**: the first few level-1 headings, dates set aside, hashed.
 *
 * Two pages are different records when both have headings and no heading in common, or when EACH has a value the
 * other lacks (a value replaced: J755020 against J755030; or one of a value's two occurrences changed, 1628 and 1628
 * against 1628 and 1629). A value only added or only removed is not enough, nor is an occurrence: a print view or a
 * page without its navigation drops the footer's phone number, a session line adds a line. The test is symmetric, so
 * both pages of a pair reach the same decision whichever is checked first.
 */

/** Values kept per page (the lowest hashes): on a page with more, the digest (digestOf) sees what the sketch does not. */
export const VALUES_KEPT = 256;
/** Buckets of the digest a page with more than VALUES_KEPT values keeps beside its sketch (6 hex characters each). */
export const BUCKETS = 64;
/** A bucket's count saturates here: a bucket this full on either page is not compared. */
const COUNT_CAP = 0xff;
/** A value's second and later occurrences count as values of their own when it has this many digits (recordValuesOf). */
const REPEATS_FROM_DIGITS = 3;
/** Level-1 headings kept per page. */
const HEADINGS_KEPT = 4;

const MONTH =
  '(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?';
const DAY = '\\d{1,2}(?:st|nd|rd|th)?';
const CLOCK = '\\d{1,2}:\\d{2}(?::\\d{2}(?:\\.\\d+)?)?(?:\\s*(?:[ap]\\.?m\\.?))?';
/** Dates and times, set aside before values are read (in this order: the longest forms first). */
const DATES_AND_TIMES: RegExp[] = [
  // ISO dates and date-times: 2026-12-02, 2026-12-02T07:00:00Z, 2026-12-02 07:00 +01:00
  /\b\d{4}-\d{1,2}-\d{1,2}(?:[t ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?(?:z|\s?[+-]\d{2}:?\d{2})?\b/giu,
  // Numeric dates: 02/12/2026, 2.12.2026, 2026/12/02
  /\b(?:\d{1,2}[./-]\d{1,2}[./-](?:\d{4}|\d{2})|\d{4}[./]\d{1,2}[./]\d{1,2})\b/gu,
  // A day and a month, a year maybe: 2 December 2026, 2nd of Dec., December 2, 2026, Dec 2nd
  new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH}(?![\\p{L}])(?:,?\\s+\\d{4}\\b)?`, 'giu'),
  new RegExp(`\\b${MONTH}(?![\\p{L}])\\s+${DAY}\\b(?:,?\\s+\\d{4}\\b)?`, 'giu'),
  // A month and a year: December 2026, Dec. 2026
  new RegExp(`\\b${MONTH}(?![\\p{L}]),?\\s+\\d{4}\\b`, 'giu'),
  // Clock times: 07:00, 7:15:02 pm, 9 am
  new RegExp(`\\b${CLOCK}`, 'giu'),
  /\b\d{1,2}\s?(?:[ap]\.?m\.?)(?![\p{L}])/giu,
  // Relative times: 2 hours ago, 5 min. ago, 3d ago
  /\b\d+\s?(?:s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?|w|wks?|weeks?|mos?|months?|y|yrs?|years?)\.?\s+ago\b/giu,
  // Copyright years: © 2024, (c) 2019-2026, Copyright 2026
  /(?:©|\(c\)|\bcopyright\b)\s*\d{4}(?:\s*[-–]\s*\d{4})?/giu,
];
/** Link targets and bare addresses: not what the page shows. */
const LINK_TARGETS = [/\]\([^)]*\)/g, /<[a-z][a-z0-9+.-]*:[^>\s]*>/gi, /\b[a-z][a-z0-9+.-]*:\/\/\S+/gi];
/** A token: letters and digits, joined by . , - / (a price 1,299.00, a code AB-1234, a rating 4.5). */
const TOKEN = /[\p{L}\p{N}]+(?:[.,\-/][\p{L}\p{N}]+)*/gu;
/**
 * Opaque hex ids (a session id, a hash, a UUID's parts): they change between fetches of one record. Sessions and hashes
 * are written in lower case; a hex-looking run the page writes in upper case (79002A33) or joins by `_` to a suffix
 * (79002A33_RD) is a code it shows, and is a value (opaque()).
 */
const OPAQUE = /^(?=[0-9a-f-]*[a-f])(?=[0-9a-f-]*\d)[0-9a-f]{6,}(?:-[0-9a-f]+)*$/;
/** After a token: `_` (escaped or not in markdown) and a letter or digit, a suffix joined to it. */
const JOINED_SUFFIX = /^\\?_[\p{L}\p{N}]/u;

/**
 * A page's record values: `<headings>|<values>`, each a list of 8-hex hashes; `+` before the values when they were cut,
 * and then `|2<digest>` after them (format 2): per bucket, 2 hex of its count and 4 of its hashes' sum. A cut record
 * without the digest is one written before it (format 1), compared by its sketch alone as then.
 */
export type RecordValues = string;

/** The values of a page's text (its `full` markdown): what identifies the record it shows (file comment). */
export function recordValuesOf(text: string): RecordValues {
  let shown = text.normalize('NFKC');
  for (const target of LINK_TARGETS) shown = shown.replace(target, ' ');
  const headings = new Set<string>();
  for (const match of shown.matchAll(/^ {0,3}#(?!#)\s*(.+?)\s*#*\s*$/gmu)) {
    const heading = undated(match[1].replace(/[[\]*_`]/g, ' '))
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu)
      ?.join(' ');
    if (heading) headings.add(hash(heading));
    if (headings.size === HEADINGS_KEPT) break;
  }
  const source = undated(shown);
  const lower = source.toLowerCase();
  // The source's case is read at the same offsets, unless lower-casing changed the length (a dotted İ): then none is.
  const cased = lower.length === source.length ? source : lower;
  const values = new Set<number>();
  const occurrences = new Map<string, number>();
  for (const match of lower.matchAll(TOKEN)) {
    const token = match[0];
    if (!/\p{N}/u.test(token) || opaque(token, cased, match.index)) continue;
    // The k-th occurrence is its own value (`token#k`, the first plain `token`): a value shown twice and changed once
    // is a value replaced, and a record written before (first occurrences only) holds a subset of these values. Only
    // for tokens of REPEATS_FROM_DIGITS digits or more: how often a short number (a cart's 0, a list's 1, "below 50")
    // is shown moves with the page's furniture (WCXB: a page without its header loses a heading's 50 and gains a
    // "0 Cart"), an identifier's does not.
    const k = (occurrences.get(token) ?? 0) + 1;
    occurrences.set(token, k);
    const counted = k > 1 && (token.match(/\p{N}/gu)?.length ?? 0) >= REPEATS_FROM_DIGITS;
    values.add(hashValue(counted ? `${token}#${k}` : token));
  }
  const sorted = [...values].sort((a, b) => a - b);
  const kept = sorted.slice(0, VALUES_KEPT).map(hex);
  const cut = sorted.length > VALUES_KEPT;
  return `${[...headings].sort().join('')}|${cut ? '+' : ''}${kept.join('')}${cut ? `|2${digestOf(sorted)}` : ''}`;
}

/** Whether the token at `at` of the text (`cased`: as the page writes it) is an opaque id (OPAQUE, its comment). */
function opaque(token: string, cased: string, at: number): boolean {
  if (!OPAQUE.test(token)) return false;
  const written = cased.slice(at, at + token.length);
  const upperCase = /[A-F]/.test(written) && !/[a-f]/.test(written);
  return !upperCase && !JOINED_SUFFIX.test(cased.slice(at + token.length, at + token.length + 3));
}

/**
 * The digest of all a page's values (format 2): each value in the bucket its hash's low bits name; per bucket its
 * count (saturating at COUNT_CAP) and the sum of the hashes' high 16 bits. A value replaced changes one bucket on each
 * side: the same count with another sum, or one more on one side and one fewer on the other; a value only added or
 * removed makes one bucket fuller on one side alone.
 */
function digestOf(values: number[]): string {
  const counts = new Array<number>(BUCKETS).fill(0);
  const sums = new Array<number>(BUCKETS).fill(0);
  for (const value of values) {
    const bucket = value % BUCKETS;
    counts[bucket] = Math.min(COUNT_CAP, counts[bucket] + 1);
    sums[bucket] = (sums[bucket] + (value >>> 16)) & 0xffff;
  }
  return counts.map((count, i) => count.toString(16).padStart(2, '0') + sums[i].toString(16).padStart(4, '0')).join('');
}

/**
 * Whether two pages show different records (file comment): their headings share none, or each has a value the other
 * lacks. Symmetric. False when either page has no values stored (a record written before the guard).
 */
export function differentRecords(a: RecordValues | undefined, b: RecordValues | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === b) return false;
  const x = parse(a);
  const y = parse(b);
  if (x.headings.length > 0 && y.headings.length > 0 && !x.headings.some((h) => y.headings.includes(h))) return true;
  return lacks(x, y) && lacks(y, x);
}

interface Parsed {
  headings: string[];
  values: Set<string>;
  /** The highest value kept when some were cut (a value above it may be on the page unseen), else null. */
  cut: string | null;
  /** Format 2, values cut: each bucket's count and sum (digestOf); null otherwise. */
  buckets: Array<{ count: number; sum: string }> | null;
}

function parse(values: RecordValues): Parsed {
  const [headings, rest = '', digest = ''] = values.split('|');
  const cutOff = rest.startsWith('+');
  const list = chunks(cutOff ? rest.slice(1) : rest);
  const buckets: Parsed['buckets'] = [];
  if (digest.startsWith('2') && digest.length === 1 + 6 * BUCKETS) {
    for (let i = 1; i < digest.length; i += 6)
      buckets.push({ count: parseInt(digest.slice(i, i + 2), 16), sum: digest.slice(i + 2, i + 6) });
  }
  return {
    headings: chunks(headings),
    values: new Set(list),
    cut: cutOff ? (list[list.length - 1] ?? null) : null,
    buckets: buckets.length > 0 ? buckets : null,
  };
}

/**
 * Whether `a` has a value `b` surely lacks: one of a's sketch not in b's and low enough that b's sketch would hold it,
 * or, when both have a digest, a bucket holding more of a's values than of b's, or as many with another sum. Only
 * ever true when a has such a value (the counts are exact below COUNT_CAP); one bucket gaining a value and losing
 * another on one page may hide a replaced value.
 */
function lacks(a: Parsed, b: Parsed): boolean {
  return sketchLacks(a, b) || bucketsLack(a, b);
}

function bucketsLack(a: Parsed, b: Parsed): boolean {
  const theirs = b.buckets;
  if (!a.buckets || !theirs) return false;
  return a.buckets.some((x, i) => {
    const y = theirs[i];
    if (x.count === COUNT_CAP || y.count === COUNT_CAP) return false;
    return x.count > y.count || (x.count === y.count && x.sum !== y.sum);
  });
}

function sketchLacks(a: Parsed, b: Parsed): boolean {
  for (const value of a.values) {
    if (b.cut !== null && value > b.cut) break; // a's values are in order: the rest are above too
    if (!b.values.has(value)) return true;
  }
  return false;
}

function undated(text: string): string {
  let out = text;
  for (const pattern of DATES_AND_TIMES) out = out.replace(pattern, ' ');
  return out;
}

function chunks(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 8 <= s.length; i += 8) out.push(s.slice(i, i + 8));
  return out;
}

/** FNV-1a (32 bits), mixed. */
function hashValue(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

function hash(s: string): string {
  return hex(hashValue(s));
}

function hex(n: number): string {
  return n.toString(16).padStart(8, '0');
}
