import type { OutputFormat } from '../types';

/** A positioned run of text as PDF.js reports it (y grows upwards, in points). */
export interface PdfTextItem {
  str: string;
  x: number;
  y: number;
  width: number;
  fontSize: number;
  hasEOL: boolean;
}

interface Line {
  text: string;
  size: number;
  y: number;
}

/** A line this much larger than the body text is a heading. */
const HEADING_RATIO = 1.15;
/** A vertical gap above this many body sizes starts a new paragraph. */
const PARAGRAPH_GAP = 2;
const MAX_HEADING_LEVEL = 4;
const BULLET = /^[•◦▪▫●○■□‣⁃∙·-]\s*/;
const NUMBERED = /^(\d{1,3}|[a-z])[.)]\s+/;

/**
 * Positioned text → markdown (or plain text): items become lines (a new line where the text moves
 * down or PDF.js marks an end of line), lines become headings (a font clearly larger than the body
 * text, ranked by size, or a title of the document's outline), list items (bullet or number first)
 * and paragraphs (consecutive lines without a large gap). Pure: the same pages give the same text.
 * Markdown marks where each page starts (`<!-- page N -->`) when there is more than one.
 */
export function pdfToText(pages: PdfTextItem[][], outlineTitles: readonly string[], format: OutputFormat): string {
  const linesByPage = pages.map(toLines);
  const body = bodySize(linesByPage.flat());
  const headingSizes = [...new Set(linesByPage.flat().map((l) => round(l.size)))]
    .filter((s) => s >= body * HEADING_RATIO)
    .sort((a, b) => b - a);
  const outline = new Set(outlineTitles.map(normalise).filter(Boolean));
  const markdown = format === 'markdown';
  const out: string[] = [];

  linesByPage.forEach((lines, index) => {
    if (markdown && pages.length > 1) out.push(`<!-- page ${index + 1} -->`);
    let paragraph: string[] = [];
    let previous: Line | undefined;
    const flush = () => {
      if (paragraph.length) out.push(joinLines(paragraph));
      paragraph = [];
    };
    for (const line of lines) {
      const sizeRank = headingSizes.indexOf(round(line.size));
      const isHeading = sizeRank >= 0 || outline.has(normalise(line.text));
      if (isHeading) {
        flush();
        const level = Math.min(MAX_HEADING_LEVEL, sizeRank >= 0 ? sizeRank + 1 : 2);
        out.push(markdown ? `${'#'.repeat(level)} ${line.text}` : line.text);
        previous = undefined;
        continue;
      }
      const item = BULLET.exec(line.text) ?? NUMBERED.exec(line.text);
      if (item) {
        flush();
        const rest = line.text.slice(item[0].length);
        paragraph.push(markdown ? (BULLET.test(line.text) ? `- ${rest}` : line.text) : line.text);
        previous = line;
        continue;
      }
      if (previous && previous.y - line.y > body * PARAGRAPH_GAP) flush();
      paragraph.push(line.text);
      previous = line;
    }
    flush();
  });
  return out.join('\n\n').trim();
}

function toLines(items: PdfTextItem[]): Line[] {
  const lines: Line[] = [];
  let current: { parts: string[]; size: number; y: number; end: number } | undefined;
  const close = () => {
    if (current) {
      const text = current.parts.join('').replace(/\s+/g, ' ').trim();
      if (text) lines.push({ text, size: current.size, y: current.y });
    }
    current = undefined;
  };
  for (const item of items) {
    if (item.str !== '') {
      if (current && Math.abs(current.y - item.y) > Math.max(current.size, item.fontSize) * 0.5) close();
      if (!current) current = { parts: [], size: item.fontSize, y: item.y, end: item.x };
      const gap = item.x - current.end;
      const last = current.parts[current.parts.length - 1] ?? '';
      if (current.parts.length && gap > item.fontSize * 0.2 && !/\s$/.test(last) && !/^\s/.test(item.str)) current.parts.push(' ');
      current.parts.push(item.str);
      current.size = Math.max(current.size, item.fontSize);
      current.end = item.x + item.width;
    }
    if (item.hasEOL) close();
  }
  close();
  return lines;
}

/** The font size that carries the most characters. */
function bodySize(lines: Line[]): number {
  const chars = new Map<number, number>();
  for (const line of lines) chars.set(round(line.size), (chars.get(round(line.size)) ?? 0) + line.text.length);
  let best = 0;
  let most = -1;
  for (const [size, count] of chars) if (count > most || (count === most && size < best)) [best, most] = [size, count];
  return best || 10;
}

/** Joins a paragraph's lines: a word hyphenated across a line break is joined again. */
function joinLines(lines: string[]): string {
  let out = '';
  for (const line of lines) {
    if (out === '') out = line;
    else if (/[a-z]-$/.test(out) && /^[a-z]/.test(line)) out = out.slice(0, -1) + line;
    else if (/^- /.test(line) || NUMBERED.test(line)) out += `\n${line}`;
    else out += ` ${line}`;
  }
  return out;
}

function round(size: number): number {
  return Math.round(size * 2) / 2;
}

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}
