import { isElement, isSpaceCode, textContent, textData, type AnyNode, type Element, typeOf } from './dom';
import { isActionText, isShareUrl } from './site-chrome';
import { renderTable } from './table-renderer';
import type { UrlResolver } from './url-resolver';
import type { LinkUrlPolicy, OutputFormat } from './types';

export interface RenderOptions {
  resolver: UrlResolver;
  format: OutputFormat;
  linkUrls: LinkUrlPolicy;
  /** Drop links that are UI actions ("Add to cart", "Print this page") rather than information. */
  dropActionLinks: boolean;
  /** Elements (and their subtrees) to leave out. */
  skip: (el: Element) => boolean;
}

const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'header',
  'hgroup',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'section',
  'summary',
  'ul',
  'caption',
  'tr',
  'td',
  'th',
  'thead',
  'tbody',
  'tfoot',
  'option',
]);

/** Beyond this nesting depth (garbage markup), subtrees are emitted as flat text to keep the stack small. */
const MAX_DEPTH = 400;

/** Above this share of link text, a block is navigation-like and its links lose their URLs. */
const PROSE_MAX_LINK_DENSITY = 0.5;

/** Marks image alt text inside links (see link()). */
const ALT_MARK = '\u0001';
const ALT_PATTERN = /\u0001([^\u0001]*)\u0001/g;

/** Sentinel that protects <pre> content from whitespace collapsing until the final pass. */
const PRE_MARK = '\u0000';

/** One level of list nesting, kept through line trimming and written as two spaces by the final pass. */
const INDENT_MARK = '\u0002';
const INDENT_CODE = 2;
const INDENT_MARK_ANYWHERE = /\u0002/g;

/**
 * A space that only separates words: written around inline elements (links, images) whose neighbours in the
 * markup may touch them without whitespace (`<a>one</a><a>two</a>`), and dropped by the final pass where the
 * text already has a space, a line edge or punctuation there (`<a>Statista</a>, the` reads "Statista, the").
 */
const SOFT_SPACE = '\u0003';
const SOFT_SPACE_RUN = /[ \u0003]*\u0003[ \u0003]*/g;
const NO_SPACE_AFTER = /[\s([{“‘«¿¡$#@/]/u;
const NO_SPACE_BEFORE = /[\s,.;:!?)\]}’”»%…/]/u;

/**
 * DOM → compact markdown. Elements return strings; blocks are wrapped in blank lines and the final
 * pass trims lines, collapses spaces and squeezes blank-line runs, so nested blocks need no
 * bookkeeping.
 */
export class MarkdownRenderer {
  private readonly pre: string[] = [];
  private readonly density = new Map<Element, number>();
  private inLink = false;
  private readonly markdown: boolean;

  constructor(private readonly options: RenderOptions) {
    this.markdown = options.format === 'markdown';
  }

  render(root: AnyNode): string {
    return this.finish(this.children(root, 0));
  }

  /** Renders several subtrees (main content and merged siblings) as one document. */
  renderAll(roots: AnyNode[]): string {
    let out = '';
    for (const root of roots) out += `\n\n${this.node(root, 0)}\n\n`;
    return this.finish(out);
  }

  /** Renders a node's content as one line (table cells, link text, headings). */
  inline(node: AnyNode, depth: number): string {
    return this.children(node, depth)
      .replace(/\s*\n[\s\u0002]*/g, ' ')
      .trim();
  }

  node(node: AnyNode, depth: number): string {
    if (typeOf(node) === 'text') return collapse(textData(node));
    if (!isElement(node)) return '';
    if (this.options.skip(node)) return '';
    if (depth > MAX_DEPTH) return ' ' + collapse(textContent(node)) + ' ';
    const d = depth + 1;
    switch (node.name) {
      case 'br':
        return '\n';
      case 'hr':
        return '\n\n';
      case 'h1':
      case 'h2':
      case 'h3':
      case 'h4':
      case 'h5':
      case 'h6': {
        const text = this.inline(node, d);
        if (text === '') return '';
        const hashes = this.markdown ? '#'.repeat(Number(node.name[1])) + ' ' : '';
        return `\n\n${hashes}${text}\n\n`;
      }
      case 'ul':
      case 'ol':
      case 'menu':
      case 'dir':
        return `\n\n${this.list(node, d)}\n\n`;
      case 'dl':
        return isLinkTree(node) ? `\n\n${this.linkTree(node, d)}\n\n` : `\n\n${this.children(node, d)}\n\n`;
      case 'a':
        return this.link(node, d);
      case 'img':
        return this.image(node);
      case 'table':
        return `\n\n${renderTable(node, this, d)}\n\n`;
      case 'pre':
        return this.preformatted(node);
      case 'blockquote': {
        const body = this.children(node, d).trim();
        if (body === '') return '';
        return this.markdown ? `\n\n${body.replace(/(^|\n)\s*/g, '$1> ')}\n\n` : `\n\n${body}\n\n`;
      }
      case 'code':
      case 'kbd':
      case 'samp': {
        const text = this.children(node, d);
        return this.markdown && text.trim() !== '' && !text.includes('`') ? `\`${text.trim()}\`` : text;
      }
      case 'td':
      case 'th':
        // Cells outside a table (broken markup) still separate their text.
        return ` ${this.children(node, d)} `;
      default:
        if (BLOCK_TAGS.has(node.name)) return `\n\n${this.children(node, d)}\n\n`;
        return this.children(node, d);
    }
  }

  children(node: AnyNode, depth: number): string {
    const children = (node as { children?: AnyNode[] }).children;
    if (!children || children.length === 0) return '';
    let out = '';
    for (const child of children) out += this.node(child, depth);
    return out;
  }

  private list(list: Element, depth: number): string {
    const ordered = list.name === 'ol';
    let index = Number(list.attribs.start) || 1;
    let out = '';
    for (const child of list.children) {
      if (isElement(child) && child.name === 'li') {
        if (this.options.skip(child)) continue;
        const body = this.children(child, depth + 1)
          .trim()
          .replace(/\s*\n\s*\n\s*/g, '\n');
        if (body === '') continue;
        const marker = ordered ? `${index++}. ` : '- ';
        // Lines after the first (nested lists, further paragraphs) belong to this item: one level deeper.
        out += `\n${marker}${body.replace(/\n/g, `\n${INDENT_MARK}`)}`;
      } else {
        out += this.node(child, depth);
      }
    }
    return out;
  }

  /** A table of contents written as a definition list: each term an item, its description (sub-entries) nested. */
  private linkTree(dl: Element, depth: number): string {
    let out = '';
    for (const child of dl.children) {
      if (!isElement(child) || this.options.skip(child)) continue;
      if (child.name === 'dt') {
        const term = this.inline(child, depth + 1);
        if (term !== '') out += `\n- ${term}`;
      } else if (child.name === 'dd') {
        const body = this.children(child, depth + 1)
          .trim()
          .replace(/\s*\n\s*\n\s*/g, '\n');
        if (body !== '') out += `\n${INDENT_MARK}${body.replace(/\n/g, `\n${INDENT_MARK}`)}`;
      }
    }
    return out;
  }

  private link(a: Element, depth: number): string {
    if (this.inLink) return this.children(a, depth);
    this.inLink = true;
    const raw = this.inline(a, depth);
    this.inLink = false;
    // Images inside a link render as alt-text markers: the alt stands in only for an image-only link.
    let content = raw;
    if (raw.includes(ALT_MARK)) {
      const withoutAlt = raw.replace(ALT_PATTERN, ' ').replace(/ {2,}/g, ' ').trim();
      content =
        withoutAlt !== ''
          ? withoutAlt
          : raw
              .replace(ALT_PATTERN, (_, alt: string) => ` ${alt} `)
              .replace(/ {2,}/g, ' ')
              .trim();
    }
    const url = this.options.resolver.resolve(a.attribs.href);
    if (url !== undefined && isShareUrl(url)) return '';
    if (this.options.dropActionLinks && isActionText(content)) return '';
    if (!this.markdown || url === undefined || this.options.resolver.isSamePageAnchor(url)) return spaced(content);
    if (this.options.linkUrls === 'none' || (this.options.linkUrls === 'prose' && !this.inProse(a))) return spaced(content);
    if (content === '') return '';
    return `${SOFT_SPACE}[${content.replace(/[[\]]/g, '')}](${escapeUrl(url.href)})${SOFT_SPACE}`;
  }

  /** A link inside running text (its block is mostly non-link text), as opposed to menus and link lists. */
  private inProse(a: Element): boolean {
    let block: Element | undefined;
    for (let p = a.parent; p && isElement(p); p = p.parent) {
      if (BLOCK_TAGS.has(p.name) || p.name === 'td' || p.name === 'th') {
        block = p;
        break;
      }
    }
    if (!block) return true;
    let density = this.density.get(block);
    if (density === undefined) {
      density = linkDensity(block, this.options.skip);
      this.density.set(block, density);
    }
    return density < PROSE_MAX_LINK_DENSITY;
  }

  private image(img: Element): string {
    const alt = collapse(img.attribs.alt ?? '').trim();
    // Images without alt text carry no words for the model; their URLs are pure token cost.
    if (alt === '') return '';
    if (this.inLink) return `${ALT_MARK}${alt.replace(/\u0001/g, '')}${ALT_MARK}`;
    if (!this.markdown) return '';
    const a = img.attribs;
    let src = a.src;
    if (src === undefined || src.startsWith('data:') || src.trim() === '') {
      src = a['data-src'] ?? a['data-lazy-src'] ?? a['data-original'] ?? a.srcset?.trim().split(/\s+/)[0];
    }
    const url = this.options.resolver.resolve(src);
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) return alt.length > 0 ? spaced(alt) : '';
    return spaced(`![${alt.replace(/[[\]]/g, '')}](${escapeUrl(url.href)})`);
  }

  private preformatted(pre: Element): string {
    const text = textContent(pre).replace(/^\n+|\s+$/g, '');
    if (text === '') return '';
    const fenced = this.markdown ? '```\n' + text + '\n```' : text;
    this.pre.push(fenced);
    return `\n\n${PRE_MARK}${this.pre.length - 1}${PRE_MARK}\n\n`;
  }

  private finish(raw: string): string {
    const lines = raw.split('\n');
    const out: string[] = [];
    let blank = true;
    for (const raw of lines) {
      const line = raw.includes(SOFT_SPACE) ? resolveSoftSpaces(raw) : raw;
      // The leading run of white space and indent marks (one level each).
      let lead = 0;
      let depth = 0;
      for (; lead < line.length; lead++) {
        const code = line.charCodeAt(lead);
        if (code === INDENT_CODE) depth++;
        else if (!isSpaceCode(code)) break;
      }
      if (lead === line.length) {
        if (!blank) out.push('');
        blank = true;
        continue;
      }
      // What follows starts with a character both passes keep, so it is never empty.
      let trimmed = line.slice(lead);
      if (trimmed.includes(INDENT_MARK)) trimmed = trimmed.replace(INDENT_MARK_ANYWHERE, '');
      if (trimmed.includes('  ')) trimmed = trimmed.replace(/ {2,}/g, ' ');
      trimmed = trimmed.trim();
      out.push(depth > 0 ? '  '.repeat(depth) + trimmed : trimmed);
      blank = false;
    }
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    let text = out.join('\n');
    if (this.pre.length > 0) {
      text = text.replace(new RegExp(`${PRE_MARK}(\\d+)${PRE_MARK}`, 'g'), (_, i: string) => this.pre[Number(i)]);
    }
    return text;
  }
}

/**
 * A definition list whose every term is a link or heads linked sub-entries (a table of contents, an index): a tree
 * of links, rendered as a list.
 */
function isLinkTree(dl: Element): boolean {
  let terms = 0;
  for (const child of dl.children) {
    if (!isElement(child) || child.name !== 'dt') continue;
    terms++;
    let linked = false;
    walkElements(child, (el) => {
      if (el.name === 'a' && el.attribs.href !== undefined) linked = true;
    });
    if (!linked && !headsSubEntries(child)) return false;
  }
  return terms > 0;
}

/** An index term without a link of its own whose description is only a list of linked sub-entries ("aggregate function"). */
function headsSubEntries(dt: Element): boolean {
  let next = dt.next;
  while (next && !isElement(next)) next = next.next;
  if (!next || !isElement(next) || next.name !== 'dd') return false;
  const inner = next.children.filter(isElement);
  return inner.length === 1 && inner[0].name === 'dl' && isLinkTree(inner[0]);
}

function walkElements(root: Element, visit: (el: Element) => void): void {
  const stack: Element[] = [root];
  while (stack.length > 0) {
    const el = stack.pop()!;
    visit(el);
    for (const child of el.children) if (isElement(child)) stack.push(child);
  }
}

function spaced(content: string): string {
  return content === '' ? '' : `${SOFT_SPACE}${content}${SOFT_SPACE}`;
}

/** Resolves the soft spaces of a line (see SOFT_SPACE). */
function resolveSoftSpaces(line: string): string {
  return line.replace(SOFT_SPACE_RUN, (run: string, at: number) => {
    if (run.includes(' ')) return ' ';
    const before = line[at - 1];
    const after = line[at + run.length];
    if (before === undefined || after === undefined || NO_SPACE_AFTER.test(before) || NO_SPACE_BEFORE.test(after)) return '';
    return ' ';
  });
}

/**
 * Runs of white space and of the renderer's marks (U+0000 to U+0003) in a text node read as one space. Only the
 * runs that change are matched: a single space between words stays where it is.
 */
function collapse(text: string): string {
  return text.replace(RUN_TO_COLLAPSE, ' ');
}

const RUN_TO_COLLAPSE = /[\s\u0000-\u0003]{2,}|[^\S ]|[\u0000-\u0003]/g;

/** Parentheses and spaces would end a markdown link destination early. */
function escapeUrl(href: string): string {
  return href.replace(/[ ()]/g, (c) => (c === ' ' ? '%20' : c === '(' ? '%28' : '%29'));
}

/** Share of a block's visible text that sits inside links. */
function linkDensity(block: Element, skip: (el: Element) => boolean): number {
  let total = 0;
  let linked = 0;
  const stack: { node: AnyNode; inLink: boolean }[] = [{ node: block, inLink: false }];
  while (stack.length > 0) {
    const { node, inLink } = stack.pop()!;
    if (typeOf(node) === 'text') {
      const len = textData(node).trim().length;
      total += len;
      if (inLink) linked += len;
      continue;
    }
    if (!isElement(node) || (node !== block && skip(node))) continue;
    if (node.name === 'img' && inLink) {
      // An image link reads as its alt text.
      const len = (node.attribs.alt ?? '').trim().length;
      total += len;
      linked += len;
      continue;
    }
    const link = inLink || node.name === 'a';
    for (const child of node.children) stack.push({ node: child, inLink: link });
  }
  return total === 0 ? 1 : linked / total;
}
