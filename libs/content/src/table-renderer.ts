import { isElement, textContent, textData, type Element, typeOf } from './dom';
import type { MarkdownRenderer } from './markdown-renderer';

/** Cell content that means the table is page layout rather than data. */
const LAYOUT_CONTENT = new Set(['table', 'ul', 'ol', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'pre', 'form', 'dl']);

const MAX_SPAN = 50;
const MAX_DATA_CELL_CHARS = 400;
const LINK_BAR_MAX_CELL = 80;
const LINK_BAR_MAX_LINK = 20;
const LINK_BAR_LINK_SHARE = 0.5;

interface Row {
  cells: Element[];
  header: boolean;
}

/**
 * Data tables become pipe tables (colspan/rowspan padded with empty cells so columns stay aligned);
 * layout tables (nested tables, block content, a single row or column) become plain blocks.
 */
export function renderTable(table: Element, renderer: MarkdownRenderer, depth: number): string {
  const rows = collectRows(table);
  const caption = table.children.find((c): c is Element => isElement(c) && c.name === 'caption');
  const captionText = caption ? renderer.inline(caption, depth) : '';
  const prefix = captionText ? `${captionText}\n\n` : '';
  if (rows.length === 0) return prefix + renderer.children(table, depth);
  if (isLayout(table, rows)) return prefix + renderLayout(rows, renderer, depth);

  const grid: string[][] = [];
  const pending: { text: string; rows: number }[] = [];
  for (const row of rows) {
    const out: string[] = [];
    let col = 0;
    const fillPending = () => {
      while (pending[col] && pending[col].rows > 0) {
        pending[col].rows--;
        out.push('');
        col++;
      }
    };
    for (const cell of row.cells) {
      fillPending();
      const text = renderer.inline(cell, depth).replace(/\|/g, '\\|');
      const colspan = span(cell.attribs.colspan);
      const rowspan = span(cell.attribs.rowspan);
      for (let i = 0; i < colspan; i++) {
        out.push(i === 0 ? text : '');
        if (rowspan > 1) pending[col] = { text, rows: rowspan - 1 };
        col++;
      }
    }
    fillPending();
    grid.push(out);
  }
  return prefix + formatGrid(grid, rows[0].header);
}

function collectRows(table: Element): Row[] {
  const rows: Row[] = [];
  const visit = (parent: Element, header: boolean) => {
    for (const child of parent.children) {
      if (!isElement(child)) continue;
      if (child.name === 'tr') {
        const cells = child.children.filter((c): c is Element => isElement(c) && (c.name === 'td' || c.name === 'th'));
        if (cells.length > 0) rows.push({ cells, header: header || cells.every((c) => c.name === 'th') });
      } else if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
        visit(child, child.name === 'thead');
      }
    }
  };
  visit(table, false);
  return rows;
}

function isLayout(table: Element, rows: Row[]): boolean {
  const role = table.attribs.role;
  if (role === 'presentation' || role === 'none') return true;
  if (rows.length < 2) return true;
  let maxCols = 0;
  for (const row of rows) maxCols = Math.max(maxCols, row.cells.length);
  if (maxCols < 2) return true;
  for (const row of rows) {
    for (const cell of row.cells) {
      if (hasLayoutContent(cell)) return true;
    }
  }
  return isLinkBar(rows);
}

/**
 * A navigation bar laid out as a table (prev / up / next, with the titles they lead to): most non-empty cells
 * are a lone short link, none holds more than a title. Its links are not data; it reads as a line of links.
 */
function isLinkBar(rows: Row[]): boolean {
  let filled = 0;
  let linkOnly = 0;
  for (const row of rows) {
    for (const cell of row.cells) {
      const text = textContent(cell).replace(/\s+/g, ' ').trim();
      if (text === '') continue;
      if (text.length > LINK_BAR_MAX_CELL) return false;
      filled++;
      const links = cell.children.filter((c): c is Element => isElement(c) && c.name === 'a');
      if (links.length === 1 && textContent(links[0]).replace(/\s+/g, ' ').trim() === text && text.length <= LINK_BAR_MAX_LINK) linkOnly++;
    }
  }
  return filled >= 2 && linkOnly >= filled * LINK_BAR_LINK_SHARE;
}

function hasLayoutContent(cell: Element): boolean {
  let chars = 0;
  const stack: Element[] = [cell];
  while (stack.length > 0) {
    const el = stack.pop()!;
    for (const child of el.children) {
      if (typeOf(child) === 'text') {
        chars += textData(child).length;
        if (chars > MAX_DATA_CELL_CHARS) return true;
      } else if (isElement(child)) {
        if (LAYOUT_CONTENT.has(child.name)) return true;
        stack.push(child);
      }
    }
  }
  return false;
}

function renderLayout(rows: Row[], renderer: MarkdownRenderer, depth: number): string {
  let out = '';
  for (const row of rows) {
    for (const cell of row.cells) out += `\n\n${renderer.children(cell, depth)}\n\n`;
  }
  return out;
}

function formatGrid(grid: string[][], _header: boolean): string {
  const width = Math.max(...grid.map((r) => r.length));
  // Drop columns and rows that are empty everywhere (spacer cells cost tokens, say nothing).
  const keep: number[] = [];
  for (let c = 0; c < width; c++) if (grid.some((r) => (r[c] ?? '') !== '')) keep.push(c);
  const rows = grid.map((r) => keep.map((c) => r[c] ?? '')).filter((r) => r.some((cell) => cell !== ''));
  if (rows.length === 0 || keep.length === 0) return '';
  if (keep.length === 1) return rows.map((r) => r[0]).join('\n');
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const lines = [line(rows[0]), `|${keep.map(() => '---').join('|')}|`];
  for (let i = 1; i < rows.length; i++) lines.push(line(rows[i]));
  return lines.join('\n');
}

function span(value: string | undefined): number {
  const n = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(n) && n > 1 ? Math.min(n, MAX_SPAN) : 1;
}
