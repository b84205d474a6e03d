import { Tokenizer } from 'htmlparser2';

/**
 * htmlparser2's tokenizer (pinned 12.0.0) reads a page one character per turn of its loop, calling the current
 * state's handler even where the handler only waits for one of two characters: in text (`<` or `&`), in a quoted
 * attribute value (the quote or `&`) and in an attribute name (`=`, `/`, `>` or white space). SkippingTokenizer
 * moves straight to the next such character in those states (`skipTo`), and the handler then runs on it as it
 * would have: the same callbacks with the same positions, so the same DOM, with fewer turns of the loop (a page's
 * text and attribute values are most of its characters). It is passed as the parser's `Tokenizer` option; with
 * entities not decoded (`&` not waited for) every state reads as it always does. Where the stock tokenizer already
 * skips to one character (`fastForwardTo`: the `<` in a script or style, the end of a comment or declaration), it
 * finds it with the string's own search instead of its loop.
 */

/** The tokenizer's members the skips use, private in its typings. */
interface TokenizerInternals {
  buffer: string;
  offset: number;
  index: number;
  decodeEntities: boolean;
  stateText(c: number): void;
  stateInAttributeName(c: number): void;
  stateInAttributeValueDoubleQuotes(c: number): void;
  stateInAttributeValueSingleQuotes(c: number): void;
  fastForwardTo(c: number): boolean;
}

const TokenizerBase = Tokenizer as unknown as new (...args: ConstructorParameters<typeof Tokenizer>) => TokenizerInternals;

const LT = 0x3c;
const AMP = 0x26;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;
const EQUALS = 0x3d;
const SLASH = 0x2f;
const GT = 0x3e;

/** The white space that ends a name in a tag (the tokenizer's: no vertical tab). */
function isTagSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0c || c === 0x0d;
}

class SkippingTokenizerImpl extends TokenizerBase {
  /**
   * The stock method with the buffer's own search: where the tokenizer waits for one character (the `<` in a
   * script or style, the `>` ending a declaration, the `-` of a comment's end), the index is left on it, or on the
   * buffer's last character when there is none, as the stock loop leaves it.
   */
  override fastForwardTo(c: number): boolean {
    const buffer = this.buffer;
    const at = buffer.indexOf(String.fromCharCode(c), this.index - this.offset + 1);
    if (at === -1) {
      this.index = this.offset + buffer.length - 1;
      return false;
    }
    this.index = this.offset + at;
    return true;
  }

  override stateText(c: number): void {
    if (c !== LT && c !== AMP && this.decodeEntities) skipTo(this, LT, AMP);
    else super.stateText(c);
  }

  override stateInAttributeValueDoubleQuotes(c: number): void {
    if (c !== DOUBLE_QUOTE && c !== AMP && this.decodeEntities) skipTo(this, DOUBLE_QUOTE, AMP);
    else super.stateInAttributeValueDoubleQuotes(c);
  }

  override stateInAttributeValueSingleQuotes(c: number): void {
    if (c !== SINGLE_QUOTE && c !== AMP && this.decodeEntities) skipTo(this, SINGLE_QUOTE, AMP);
    else super.stateInAttributeValueSingleQuotes(c);
  }

  override stateInAttributeName(c: number): void {
    if (c === EQUALS || c === SLASH || c === GT || isTagSpace(c)) {
      super.stateInAttributeName(c);
      return;
    }
    const buffer = this.buffer;
    let i = this.index - this.offset + 1;
    for (; i < buffer.length; i++) {
      const next = buffer.charCodeAt(i);
      if (next === EQUALS || next === SLASH || next === GT || isTagSpace(next)) break;
    }
    this.index = this.offset + i - 1;
  }
}

/**
 * Leaves the index on the character before the next `a` or `b` after the current one (the buffer's last character
 * when there is none): the loop steps onto it next, in the same state, as it would have one character at a time.
 */
function skipTo(tokenizer: TokenizerInternals, a: number, b: number): void {
  const buffer = tokenizer.buffer;
  let i = tokenizer.index - tokenizer.offset + 1;
  for (; i < buffer.length; i++) {
    const next = buffer.charCodeAt(i);
    if (next === a || next === b) break;
  }
  tokenizer.index = tokenizer.offset + i - 1;
}

/** The tokenizer class to give htmlparser2's Parser (its `Tokenizer` option). */
export const SkippingTokenizer = SkippingTokenizerImpl as unknown as typeof Tokenizer;
