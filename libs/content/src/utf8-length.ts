/**
 * The length of a string in UTF-8 bytes: the answer of `Buffer.byteLength(text, 'utf8')`, a lone surrogate counted
 * as the three bytes of the replacement character it is written as. A page's source is ASCII but for a few dozen
 * runs of other characters (typographic quotes, dashes, accented words), and once it holds one character above
 * U+00FF, V8 keeps it two bytes a character, for which Node's count walks every character in a slower loop than for
 * Latin-1 strings. Here the regular expression engine finds the runs that are not ASCII, and only their characters
 * are counted one by one; a text with many such characters (a page in Greek, Russian or Chinese) is given to
 * `Buffer.byteLength` once they pass an eighth of it (the runs read so far are dropped: at most that eighth).
 */

const NOT_ASCII = /[^\x00-\x7f]+/g;

export function utf8Length(text: string): number {
  const budget = text.length >>> 3;
  let counted = 0;
  let bytes = text.length;
  NOT_ASCII.lastIndex = 0;
  for (let match = NOT_ASCII.exec(text); match !== null; match = NOT_ASCII.exec(text)) {
    const run = match[0];
    counted += run.length;
    if (counted > budget) {
      NOT_ASCII.lastIndex = 0;
      return Buffer.byteLength(text, 'utf8');
    }
    bytes += extraBytes(run);
  }
  return bytes;
}

/** The bytes past one a character that `run` (no ASCII in it) takes in UTF-8. */
function extraBytes(run: string): number {
  let extra = 0;
  for (let i = 0; i < run.length; i++) {
    const c = run.charCodeAt(i);
    if (c < 0x800) extra += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < run.length && (run.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      // A surrogate pair: two characters, four bytes.
      extra += 2;
      i++;
    } else extra += 2;
  }
  return extra;
}
