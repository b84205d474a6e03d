/**
 * Reads the lists of names the documents give of things the running service defines: its MCP tools and their
 * arguments, the scrape formats and request fields, the crawl options and its metrics. test/e2e/docs-names.suite.ts
 * holds each list against the service itself (docs/contributing.md "Documents and the service agree").
 */

/** A name a document gives, and where. */
export interface NameClaim {
  name: string;
  file: string;
  line: number;
}

/** Backticked lower-case names (`crawl_start`, `page_info`); not class names (`ExtractRequestDto`), paths or values. */
const BACKTICKED = /`([a-z][a-z0-9_]*)`/g;

const lineAt = (text: string, index: number): number => text.slice(0, index).split('\n').length;

function backticked(file: string, text: string, from: number, to: number): NameClaim[] {
  return [...text.slice(from, to).matchAll(BACKTICKED)].map((m) => ({ name: m[1], file, line: lineAt(text, from + m.index) }));
}

/** The backticked names of a sentence's list: from `start` to the next `)` ("Gleaner's tools (`extract`, ...)"). */
export function namesAfter(file: string, text: string, start: string): NameClaim[] {
  const at = text.indexOf(start);
  if (at < 0) throw new Error(`${file}: no "${start}"`);
  return backticked(file, text, at + start.length, text.indexOf(')', at));
}

/** The text of the `## heading` section (up to the next `## `). */
export function section(file: string, text: string, heading: string): { from: number; body: string } {
  const m = new RegExp(`^## ${heading}\\n([\\s\\S]*?)(?=^## |(?![\\s\\S]))`, 'm').exec(text);
  if (!m) throw new Error(`${file}: no "## ${heading}" section`);
  return { from: m.index + m[0].length - m[1].length, body: m[1] };
}

/** The cells of each table row of `body`, with the row's offset (header and separator rows left out). */
function tableRows(body: string): Array<{ at: number; cells: string[] }> {
  const rows: Array<{ at: number; cells: string[] }> = [];
  let at = 0;
  for (const line of body.split('\n')) {
    if (line.startsWith('|') && !/^\|[\s|:-]+\|$/.test(line)) {
      const cells = line.slice(1, line.trimEnd().endsWith('|') ? line.trimEnd().length - 1 : undefined).split('|');
      rows.push({ at, cells });
    }
    at += line.length + 1;
  }
  return rows;
}

/**
 * The names a table of a section gives in its first column: each row whose first cell starts with a backticked
 * name (`| `headers`, `cookies` | ...` gives both); the header row and rows of prose are not names.
 */
export function firstColumnNames(file: string, text: string, heading: string): NameClaim[] {
  const { from, body } = section(file, text, heading);
  return tableRows(body)
    .filter((row) => /^\s*`/.test(row.cells[0]))
    .flatMap((row) => backticked(file, text, from + row.at, from + row.at + row.cells[0].length + 1));
}

/** docs/mcp.md's tool table: per row, the tools it describes (first cell) and the arguments its `input` cell names. */
export function mcpToolRows(file: string, text: string): Array<{ tools: NameClaim[]; inputs: NameClaim[] }> {
  const { from, body } = section(file, text, 'The tools');
  const rows = tableRows(body);
  const input = rows[0].cells.findIndex((cell) => cell.trim() === 'input');
  if (input < 0) throw new Error(`${file}: the tool table has no "input" column`);
  return rows.slice(1).map((row) => {
    const start = from + row.at + 1;
    const cellStart = (i: number) => start + row.cells.slice(0, i).reduce((n, cell) => n + cell.length + 1, 0);
    return {
      tools: backticked(file, text, cellStart(0), cellStart(1)),
      inputs: backticked(file, text, cellStart(input), cellStart(input + 1)),
    };
  });
}

/** A list written in parentheses after `marker`, without backticks: "`formats` (markdown, text, html)". */
export function parenthesisedList(file: string, text: string, marker: string): NameClaim[] {
  const at = text.indexOf(marker);
  if (at < 0) throw new Error(`${file}: no "${marker}"`);
  const m = /^\s*\(([^)]*)\)/.exec(text.slice(at + marker.length));
  if (!m) throw new Error(`${file}: no list in parentheses after "${marker}"`);
  return m[1].split(',').map((name) => ({ name: name.trim(), file, line: lineAt(text, at) }));
}

/** The formats code blocks ask for: `"formats": ["markdown", "links"]` in a JSON body, `--formats markdown,links`. */
export function formatClaims(file: string, text: string): NameClaim[] {
  const claims: NameClaim[] = [];
  for (const block of text.matchAll(/^(\s*)```[^\n]*\n([\s\S]*?)^\1```/gm)) {
    const offset = block.index + block[0].indexOf(block[2]);
    for (const m of block[2].matchAll(/"formats"\s*:\s*\[([^\]]*)\]/g))
      for (const f of m[1].matchAll(/"([^"]*)"/g)) claims.push({ name: f[1], file, line: lineAt(text, offset + m.index) });
    for (const m of block[2].matchAll(/--formats[= ]([\w,]+)/g))
      for (const name of m[1].split(',')) claims.push({ name, file, line: lineAt(text, offset + m.index) });
  }
  return claims;
}

/**
 * The metrics a document names: every `gleaner_…` name, histogram series (`_bucket`, `_sum`, `_count`) included.
 * docs/operations-deploy.md names Docker secrets and stack services `gleaner_…` too (`gleaner_secret`,
 * `gleaner_api`): there, only names with a unit suffix are metrics.
 */
export function metricClaims(file: string, text: string): NameClaim[] {
  const unitOnly = file === 'docs/operations-deploy.md';
  return [...text.matchAll(/\bgleaner_[a-z0-9_]*[a-z0-9]\b/g)]
    .filter((m) => !unitOnly || /_(total|seconds|bytes|bucket|sum|count)$/.test(m[0]))
    .map((m) => ({ name: m[0], file, line: lineAt(text, m.index) }));
}

/** Claims whose name is not in `known`, as `file:line name` (what a failing test shows). */
export function unknownNames(claims: NameClaim[], known: Iterable<string>): string[] {
  const set = new Set(known);
  return claims.filter((c) => !set.has(c.name)).map((c) => `${c.file}:${c.line} ${c.name}`);
}

/** The names of `known` no claim gives (what a list that should be complete misses). */
export function missingNames(claims: NameClaim[], known: Iterable<string>): string[] {
  const named = new Set(claims.map((c) => c.name));
  return [...known].filter((name) => !named.has(name)).sort();
}
