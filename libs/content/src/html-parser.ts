import { Parser } from 'htmlparser2';

/**
 * htmlparser2's parser (pinned 12.0.0) reads every tag and attribute name as a new string: a slice of the page,
 * lower-cased. A page repeats a few dozen names thousands of times (`div`, `a`, `class`, `href`, a site's own
 * `data-*`), and each new copy costs a slice, a lower-casing and, as an attribute name, its interning when it
 * becomes a key of the element's `attribs`. NamingParser keeps the names it has read (a small table by a hash of
 * their characters, shared by every parse) and, where a name in the page is written exactly as one it keeps,
 * gives that same string: equal to what the parser would have read, so the same DOM, with fewer strings made.
 * Only names written in lower case and read as written are kept (one written in capitals is read as the parser
 * reads it), and no tag name the parser reads differently in some context (SVG's camel-cased names, `image`).
 */

/** The parser's members the names use, private in its typings. */
interface ParserInternals {
  buffers: string[];
  bufferOffset: number;
  startIndex: number;
  attribname: string;
  lowerCaseTagNames: boolean;
  lowerCaseAttributeNames: boolean;
  readTagName(start: number, endIndex: number): string;
  onattribname(start: number, endIndex: number): void;
}

const ParserBase = Parser as unknown as new (...args: ConstructorParameters<typeof Parser>) => ParserInternals;

/** The longest name kept, and the table's size (a power of two). */
const MAX_NAME_LENGTH = 40;
const SLOTS = 2048;

/**
 * Names kept by a hash of their characters, one per slot (a later name takes the slot of an earlier one with the
 * same hash): a look-up compares the page's characters with the one name in the slot, and makes no string.
 */
export class NameTable {
  private readonly names: (string | undefined)[] = new Array<string | undefined>(SLOTS).fill(undefined);

  /** The name kept that `source` holds exactly from `start` to `end`, if any. */
  find(source: string, start: number, end: number): string | undefined {
    const length = end - start;
    if (length > MAX_NAME_LENGTH || length <= 0) return undefined;
    const name = this.names[slotOf(source, start, end)];
    if (name === undefined || name.length !== length) return undefined;
    for (let i = 0; i < length; i++) if (name.charCodeAt(i) !== source.charCodeAt(start + i)) return undefined;
    return name;
  }

  /** Keeps `name`, read from `source` from `start` to `end` (where it is written exactly so). */
  keep(name: string, source: string, start: number, end: number): void {
    if (end - start > MAX_NAME_LENGTH || end - start <= 0) return;
    this.names[slotOf(source, start, end)] = name;
  }
}

function slotOf(source: string, start: number, end: number): number {
  let hash = end - start;
  for (let i = start; i < end; i++) hash = (Math.imul(hash, 31) + source.charCodeAt(i)) | 0;
  return (hash ^ (hash >>> 11)) & (SLOTS - 1);
}

/**
 * Tag names htmlparser2 reads as another name in some context: `image` (read as `img` outside foreign content) and
 * the lower-cased SVG names it gives back their camel case inside `<svg>` (its svgTagNameAdjustments).
 */
const CONTEXTUAL_TAG_NAMES: ReadonlySet<string> = new Set([
  'image',
  'altglyph',
  'altglyphdef',
  'altglyphitem',
  'animatecolor',
  'animatemotion',
  'animatetransform',
  'clippath',
  'feblend',
  'fecolormatrix',
  'fecomponenttransfer',
  'fecomposite',
  'feconvolvematrix',
  'fediffuselighting',
  'fedisplacementmap',
  'fedistantlight',
  'fedropshadow',
  'feflood',
  'fefunca',
  'fefuncb',
  'fefuncg',
  'fefuncr',
  'fegaussianblur',
  'feimage',
  'femerge',
  'femergenode',
  'femorphology',
  'feoffset',
  'fepointlight',
  'fespecularlighting',
  'fespotlight',
  'fetile',
  'feturbulence',
  'foreignobject',
  'glyphref',
  'lineargradient',
  'radialgradient',
  'textpath',
]);

const TAG_NAMES = new NameTable();
const ATTRIBUTE_NAMES = new NameTable();

class NamingParserImpl extends ParserBase {
  /** The page, when it was given whole (the only way parseHtml gives it). */
  private source(): string | undefined {
    return this.buffers.length === 1 && this.bufferOffset === 0 ? this.buffers[0] : undefined;
  }

  override readTagName(start: number, endIndex: number): string {
    const source = this.lowerCaseTagNames ? this.source() : undefined;
    if (source === undefined) return super.readTagName(start, endIndex);
    const kept = TAG_NAMES.find(source, start, endIndex);
    if (kept !== undefined) return kept;
    const name = super.readTagName(start, endIndex);
    // Kept only as read outside SVG (in lower case) and where no context reads it otherwise.
    if (
      name.length === endIndex - start &&
      source.startsWith(name, start) &&
      name === name.toLowerCase() &&
      !CONTEXTUAL_TAG_NAMES.has(name)
    )
      TAG_NAMES.keep(name, source, start, endIndex);
    return name;
  }

  override onattribname(start: number, endIndex: number): void {
    const source = this.lowerCaseAttributeNames ? this.source() : undefined;
    if (source === undefined) {
      super.onattribname(start, endIndex);
      return;
    }
    const kept = ATTRIBUTE_NAMES.find(source, start, endIndex);
    if (kept !== undefined) {
      this.startIndex = start;
      this.attribname = kept;
      return;
    }
    super.onattribname(start, endIndex);
    const name = this.attribname;
    if (name.length === endIndex - start && source.startsWith(name, start)) ATTRIBUTE_NAMES.keep(name, source, start, endIndex);
  }
}

/** The parser class parseHtml uses: htmlparser2's, its names kept (see above). */
export const NamingParser = NamingParserImpl as unknown as typeof Parser;
