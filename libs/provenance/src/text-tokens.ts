/**
 * Words of a text as grounding compares them (docs/provenance.md "Normalisation"): runs of letters, digits and
 * combining marks, each Unicode NFKC-normalised and lower-cased; everything else (whitespace, punctuation,
 * symbols, markdown syntax) only separates words. Han, Hiragana and Katakana characters are words of their own
 * (those scripts do not separate words by spaces). Offsets are into the original text.
 */
export interface Tokens {
  keys: string[];
  starts: number[];
  ends: number[];
}

/** Every pattern here is fixed (never built from page or model text) and linear: one character class, repeated. */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const CJK_CHAR = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]$/u;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ASCII_WORD = /^[\x00-\x7f]*$/;

/**
 * Letters of scripts written without spaces between words that the tokenizer does not segment (Thai, Lao, Khmer,
 * Myanmar, ...): a value in them that is not found as a whole word is `unsupported_script`, not ungrounded.
 */
const KNOWN_LETTER =
  /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Armenian}\p{Script=Hebrew}\p{Script=Arabic}\p{Script=Syriac}\p{Script=Thaana}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}\p{Script=Georgian}\p{Script=Hangul}\p{Script=Ethiopic}\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Bopomofo}\p{Script=Common}\p{Script=Inherited}]/u;
const LETTER = /\p{L}/gu;

/** The comparison form of one word: NFKC, lower case (plain ASCII skips the normalisation). */
export function wordKey(word: string): string {
  return PRINTABLE_ASCII.test(word) ? word.toLowerCase() : word.normalize('NFKC').toLowerCase();
}

/** A word that is all ASCII digits (after NFKC: full-width digits count). */
export function isDigits(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** A–Z, a–z, 0–9: the ASCII characters of WORD (\p{L}, \p{N}, \p{M} have no others below 128). */
function asciiWordChar(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/**
 * Tokenizes `text[from, to)` into `out`. `skip` lists spans (sorted, not overlapping, as [start, end) pairs) whose
 * words are left out (markdown link targets). The words are WORD's matches: runs of plain ASCII letters and digits
 * are read by a scan of character codes (most of most pages), and wherever a character past ASCII starts or
 * continues a run, WORD itself reads the word.
 */
export function tokenizeInto(out: Tokens, text: string, from = 0, to = text.length, skip: number[] = []): void {
  let re: RegExp | undefined;
  let span = 0;
  const length = text.length;
  let i = from;
  while (i < to) {
    const c = text.charCodeAt(i);
    let start: number;
    let stop: number;
    let ascii: boolean;
    if (c < 128 && !asciiWordChar(c)) {
      i++;
      continue;
    }
    let j = i + 1;
    if (c < 128) while (j < length && asciiWordChar(text.charCodeAt(j))) j++;
    if (c < 128 && (j === length || text.charCodeAt(j) < 128)) {
      start = i;
      stop = j;
      ascii = true;
    } else {
      // A character past ASCII: WORD decides where the next word starts and ends.
      re ??= new RegExp(WORD.source, WORD.flags);
      re.lastIndex = i;
      const m = re.exec(text);
      if (m === null || m.index >= to) return;
      start = m.index;
      stop = start + m[0].length;
      ascii = false;
    }
    i = stop;
    const end = Math.min(to, stop);
    while (span < skip.length && skip[span + 1] <= start) span += 2;
    if (span < skip.length && skip[span] < end) continue; // inside (or across) a skipped span
    const word = text.slice(start, end);
    // Most words of most pages are ASCII: no Han or Kana in them, and nothing for NFKC to change.
    if (ascii || ASCII_WORD.test(word)) push(out, word.toLowerCase(), start, end);
    else if (CJK.test(word)) pushCjk(out, word, start);
    else push(out, wordKey(word), start, end);
  }
}

export function tokenize(text: string): Tokens {
  const out: Tokens = { keys: [], starts: [], ends: [] };
  tokenizeInto(out, text);
  return out;
}

function push(out: Tokens, key: string, start: number, end: number): void {
  out.keys.push(key);
  out.starts.push(start);
  out.ends.push(end);
}

/** A run with Han/Kana characters: each of them a word, the letters between them words as usual. */
function pushCjk(out: Tokens, word: string, offset: number): void {
  let runStart = -1;
  let i = 0;
  for (const ch of word) {
    const at = offset + i;
    if (CJK_CHAR.test(ch)) {
      if (runStart >= 0) push(out, wordKey(word.slice(runStart - offset, i)), runStart, at);
      runStart = -1;
      push(out, wordKey(ch), at, at + ch.length);
    } else if (runStart < 0) runStart = at;
    i += ch.length;
  }
  if (runStart >= 0) push(out, wordKey(word.slice(runStart - offset)), runStart, offset + word.length);
}

/** Whether the text has letters of a script the tokenizer does not segment into words. */
export function hasUnsegmentedScript(text: string): boolean {
  const re = new RegExp(LETTER.source, LETTER.flags);
  for (let m = re.exec(text); m !== null; m = re.exec(text)) if (!KNOWN_LETTER.test(m[0])) return true;
  return false;
}
