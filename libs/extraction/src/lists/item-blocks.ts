/**
 * The repeated item structure of a page, read from the markdown the model is given (docs/long-lists.md "Counting
 * items"): the rows of a table, the top-level items of a list, a run of sections under headings of one level, or a
 * run of paragraphs that repeats one shape (a quote and its tags line, ten times). Counting in the markdown, not in
 * the HTML, keeps the count and the chunk boundaries on the same text: an item is a span of what the model reads.
 */

import { refinedGroup } from './item-edges';

/** One item of a group: where its text starts and ends in the markdown. */
export interface ItemSpan {
  start: number;
  end: number;
}

export interface ItemGroup {
  kind: 'table' | 'list' | 'sections' | 'blocks';
  items: ItemSpan[];
  /** Text every chunk of the group repeats before its items (a table's header and separator rows). */
  prefix: string;
  /** Characters of all the items together. */
  text: number;
}

/** Paragraphs an item of paragraphs holds after its first (a quote's author line, its tags). */
const MAX_FOLLOWERS = 3;

/** Fewest items a group needs: two of a kind are a pair, not a list. */
export const MIN_ITEMS = 3;

interface Line {
  text: string;
  start: number;
  /** Offset after the line's text (its newline not included). */
  end: number;
}

function linesOf(markdown: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (const text of markdown.split('\n')) {
    lines.push({ text, start, end: start + text.length });
    start += text.length + 1;
  }
  return lines;
}

const TABLE_ROW = /^\s*\|/;
const TABLE_SEPARATOR = /^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/;
const BULLET = /^(?:[-*+]|\d{1,9}[.)])\s+\S/;
const HEADING = /^(#{1,6})\s+\S/;

/** Every group of repeated items in the markdown, in no particular order. */
export function itemGroups(markdown: string): ItemGroup[] {
  const lines = linesOf(markdown);
  return [...tables(lines), ...lists(lines), ...sections(lines), ...blockRuns(lines)]
    .filter((g) => g.items.length >= MIN_ITEMS)
    .map((g) => refinedGroup(markdown, g));
}

function group(kind: ItemGroup['kind'], items: ItemSpan[], prefix = ''): ItemGroup {
  return { kind, items, prefix, text: items.reduce((sum, i) => sum + (i.end - i.start), 0) };
}

/**
 * Rows of each table after its header (a table without a separator row: every row). Rows that repeat a cycle of two
 * or three shapes (a story's title row, then its byline row) are one item per cycle; a first row that opens the cycle
 * (a headless table whose first row the conversion made its header) is then the first item's, not a header.
 */
function tables(lines: Line[]): ItemGroup[] {
  const found: ItemGroup[] = [];
  for (let i = 0; i < lines.length;) {
    if (!TABLE_ROW.test(lines[i].text)) {
      i++;
      continue;
    }
    let j = i;
    while (j < lines.length && TABLE_ROW.test(lines[j].text)) j++;
    const headed = j - i >= 2 && TABLE_SEPARATOR.test(lines[i + 1].text);
    const first = headed ? i + 2 : i;
    const rows = lines.slice(first, j);
    const cycle = rowCycle(rows.map((l) => rowShape(l.text)));
    if (cycle) {
      // The header is the first item's opening row when it has the opening row's shape and the body opens mid-cycle.
      const headerOpens = headed && rowShape(lines[i].text) === cycle.opening && rowShape(rows[0]?.text ?? '') !== cycle.opening;
      const spans = cycleItems(rows, cycle);
      if (headerOpens && spans.length > 0 && rowShape(rows[0].text) !== cycle.opening) {
        const lead = rows.findIndex((r) => rowShape(r.text) === cycle.opening);
        const end = lead > 0 ? rows[lead - 1].end : rows[rows.length - 1].end;
        spans.unshift({ start: lines[i].start, end });
      }
      found.push(group('table', spans, headerOpens ? '' : headed ? `${lines[i].text}\n${lines[i + 1].text}\n` : ''));
    } else {
      const prefix = headed ? `${lines[i].text}\n${lines[i + 1].text}\n` : '';
      found.push(
        group(
          'table',
          rows.map((l) => ({ start: l.start, end: l.end })),
          prefix,
        ),
      );
    }
    i = j;
  }
  return found;
}

/** A row's shape: per cell, empty or filled. */
function rowShape(row: string): string {
  return row
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((cell) => {
      return cell.trim() === '' ? '_' : 'x';
    })
    .join('');
}

interface RowCycle {
  period: number;
  /** The shape of the row an item opens with: its first cell is filled, the cycle's other rows' is empty. */
  opening: string;
}

/**
 * The cycle of shapes the rows repeat, when they repeat one of two or three different shapes (all but a stray
 * row or two at the ends), the opening row's first cell filled and the others' empty, and there are at least
 * MIN_ITEMS cycles; null for a table of one row per item.
 */
function rowCycle(shapes: string[]): RowCycle | null {
  for (const period of [2, 3]) {
    if (shapes.length < period * MIN_ITEMS) continue;
    for (let offset = 0; offset < period; offset++) {
      const cycle = shapes.slice(offset, offset + period);
      if (new Set(cycle).size !== period) continue;
      let matched = 0;
      for (let k = offset; k < shapes.length; k++) if (shapes[k] === cycle[(k - offset) % period]) matched++;
      // Every row but a stray one at either end follows the cycle.
      if (matched < shapes.length - 2 || matched < period * MIN_ITEMS) continue;
      const opening = cycle.find((c) => c.startsWith('x')) ?? '';
      // The rows after the opening one continue its item: their first cell is left empty (an alternating empty cell
      // further right is an optional field of one-row items).
      if (!opening.startsWith('x') || cycle.some((c) => c !== opening && !c.startsWith('_'))) continue;
      return { period, opening };
    }
  }
  return null;
}

/** Items of a cycled table: each opening row with the rows after it, up to the next opening row (at most a cycle). */
function cycleItems(rows: Line[], cycle: RowCycle): ItemSpan[] {
  const items: ItemSpan[] = [];
  for (let k = 0; k < rows.length; k++) {
    if (rowShape(rows[k].text) !== cycle.opening) continue;
    let last = k;
    while (last + 1 < rows.length && last - k + 1 < cycle.period && rowShape(rows[last + 1].text) !== cycle.opening) last++;
    items.push({ start: rows[k].start, end: rows[last].end });
  }
  return items;
}

/** The top-level items of each list (an item runs to the next top-level bullet: its indented lines and sub-lists are its own). */
function lists(lines: Line[]): ItemGroup[] {
  const found: ItemGroup[] = [];
  let items: ItemSpan[] = [];
  const close = () => {
    if (items.length > 0) found.push(group('list', items));
    items = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i].text;
    if (BULLET.test(text)) {
      items.push({ start: lines[i].start, end: lines[i].end });
    } else if (items.length > 0 && /^\s+\S/.test(text)) {
      items[items.length - 1].end = lines[i].end;
    } else if (
      items.length > 0 &&
      text.trim() === '' &&
      i + 1 < lines.length &&
      (BULLET.test(lines[i + 1].text) || /^\s+\S/.test(lines[i + 1].text))
    ) {
      // A loose list: a blank line between items (or inside one) does not end it.
      continue;
    } else close();
  }
  close();
  return found;
}

/**
 * Runs of sections under headings of one level: a section runs to the next heading of its level or higher. Sections of
 * one run open alike; one section that opens otherwise between two that open as the run does stays in the run (a
 * card whose subtitle reads as a label).
 */
function sections(lines: Line[]): ItemGroup[] {
  const headings = lines.flatMap((line, index) => {
    const m = HEADING.exec(line.text);
    return m ? [{ level: m[1].length, index }] : [];
  });
  const found: ItemGroup[] = [];
  for (let level = 1; level <= 6; level++) {
    // The level's sections, each with whether a higher heading comes before it (it then starts a new run).
    const sectionsAt: Array<{ span: ItemSpan; opening: string; cut: boolean }> = [];
    let cut = true;
    for (let h = 0; h < headings.length; h++) {
      const { level: at, index } = headings[h];
      if (at < level) cut = true;
      if (at !== level) continue;
      const next = headings.slice(h + 1).find((o) => o.level <= level);
      const endLine = next ? next.index - 1 : lines.length - 1;
      // Sections of one list open alike (a price line, a paragraph): "Staff picks" with a list under it is another thing.
      sectionsAt.push({
        span: { start: lines[index].start, end: trimmedEnd(lines, index, endLine) },
        opening: sectionShape(lines, index + 1, endLine),
        cut,
      });
      cut = false;
    }
    let run: ItemSpan[] = [];
    let shape = '';
    const close = () => {
      if (run.length > 0) found.push(group('sections', run));
      run = [];
    };
    for (let k = 0; k < sectionsAt.length; k++) {
      const { span, opening, cut: cutBefore } = sectionsAt[k];
      if (cutBefore) close();
      else if (run.length > 0 && opening !== shape) {
        const after = sectionsAt[k + 1];
        const odd = run.length >= 2 && after !== undefined && !after.cut && after.opening === shape;
        if (!odd) close();
      }
      if (run.length === 0) shape = opening;
      run.push(span);
    }
    close();
  }
  return found;
}

/** The signature of a section's first block under its heading (`none`: a heading alone). */
function sectionShape(lines: Line[], from: number, to: number): string {
  let i = from;
  while (i <= to && lines[i].text.trim() === '') i++;
  if (i > to || HEADING.test(lines[i].text)) return 'none';
  let j = i;
  while (j + 1 <= to && lines[j + 1].text.trim() !== '') j++;
  // A paragraph is a paragraph whatever it opens with (a style name, a price): cards of one grid differ there; a
  // label (`Difficulty:`) is a shape of its own.
  return signatureOf(lines.slice(i, j + 1).map((l) => l.text))
    .replace(/^(p:label):[^:]*/, '$1')
    .replace(/^p:(?!label$).*/, 'p');
}

/** The end of the last non-blank line of lines[from..to]. */
function trimmedEnd(lines: Line[], from: number, to: number): number {
  let last = to;
  while (last > from && lines[last].text.trim() === '') last--;
  return lines[last].end;
}

interface Block extends ItemSpan {
  signature: string;
  /** It holds a markdown link. */
  linked: boolean;
  /** Its lines (a paragraph of several: hard line breaks, a title line then a byline). */
  lines: number;
}

/** Whether a block opens an item of a run anchored on `anchor`: a paragraph signature, or `lines:N` (a paragraph of N > 1 lines). */
function opens(block: Block, anchor: string): boolean {
  if (anchor.startsWith('lines:')) return block.signature.startsWith('p:') && `lines:${block.lines}` === anchor;
  return block.signature === anchor;
}

/**
 * The page's blocks (paragraphs; a table, a list or a heading is one block of its kind) and runs of items that
 * open with a paragraph of one shape, each with up to MAX_FOLLOWERS other paragraphs after it (a quote, then its
 * tags line when it has one).
 */
function blockRuns(lines: Line[]): ItemGroup[] {
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length;) {
    if (lines[i].text.trim() === '') {
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < lines.length && lines[j + 1].text.trim() !== '') j++;
    const texts = lines.slice(i, j + 1).map((l) => l.text);
    blocks.push({
      start: lines[i].start,
      end: lines[j].end,
      signature: signatureOf(texts),
      linked: /\]\(/.test(texts.join('\n')),
      lines: texts.length,
    });
    i = j + 1;
  }
  const found: ItemGroup[] = [];
  // Items open with a paragraph of one shape: its first character or label, or (items whose title is a link on some
  // and plain text on others) its number of lines when it has several.
  const anchors = new Set(
    blocks.flatMap((b) => (b.signature.startsWith('p:') ? [b.signature, ...(b.lines > 1 ? [`lines:${b.lines}`] : [])] : [])),
  );
  for (const anchor of anchors) {
    let items: Array<ItemSpan & { followers: number; linked: boolean }> = [];
    const close = () => {
      // One plain paragraph after another is running text, not a list: items need a label, a link or a paragraph of their own kind after them.
      const marked = anchor.startsWith('p:label:') || items.every((i) => i.followers > 0 || i.linked);
      if (items.length >= MIN_ITEMS && marked)
        found.push(
          group(
            'blocks',
            items.map(({ start, end }) => ({ start, end })),
          ),
        );
      items = [];
    };
    for (const block of blocks) {
      const current = items[items.length - 1];
      if (opens(block, anchor)) items.push({ start: block.start, end: block.end, followers: 0, linked: block.linked });
      else if (current && block.signature.startsWith('p:') && current.followers < MAX_FOLLOWERS) {
        current.end = block.end;
        current.followers++;
      } else close();
    }
    close();
  }
  return found;
}

/** A block's shape: its kind, or for a paragraph its leading label (`Tags:`) or its first character's class. */
function signatureOf(lines: string[]): string {
  const first = lines[0].trim();
  if (TABLE_ROW.test(first)) return 'table';
  if (BULLET.test(first)) return 'list';
  const heading = HEADING.exec(first);
  if (heading) return `h${heading[1].length}`;
  const label = /^([\p{L}][\p{L} ]{0,24}):/u.exec(first);
  const lead = label ? `label:${label[1].toLowerCase()}` : /^\p{L}/u.test(first) ? 'L' : /^\p{N}/u.test(first) ? 'N' : first[0];
  return `p:${lead}`;
}
