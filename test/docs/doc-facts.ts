/**
 * Reads what the documents claim about names the code defines: the README's configuration table, the
 * error categories a sentence says something fails with, the CLI's exit codes (docs/contributing.md
 * "Documents and code agree").
 */

/** `GLEANER_{OPENAI,ANTHROPIC}_API_KEY` → both names. */
function expandBraces(name: string): string[] {
  const m = /^(.*?)\{([^}]*)\}(.*)$/.exec(name);
  if (!m) return [name];
  return m[2].split(',').flatMap((part) => expandBraces(`${m[1]}${part.trim()}${m[3]}`));
}

/** The variables in the first column of the README's "## Configuration" table. */
export function configTableVariables(readme: string): Set<string> {
  const section = /^## Configuration\n([\s\S]*?)(?=^## )/m.exec(readme);
  if (!section) throw new Error('README.md has no "## Configuration" section');
  const names = new Set<string>();
  for (const line of section[1].split('\n')) {
    if (!line.startsWith('| `')) continue;
    const first = line.split('|')[1];
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_{},]*)`/g)) for (const name of expandBraces(m[1])) names.add(name);
  }
  return names;
}

export interface LineClaim {
  line: number;
}

const TOKEN = '`([a-z]+(?:_[a-z]+)+)`';
/**
 * Sentences that name a category: "fail(s) (with|as) `x`", "error category `x`", "`error_category` … for
 * `x`, `y`", "the one vocabulary …: `x`, `y`, …", "error_category: x" in a JSON-like answer. A list goes on
 * through `, `y``, `` or `y` `` and `` and `y` ``.
 */
const CATEGORY_TRIGGERS = [
  new RegExp(`\\bfail(?:s|ed|ing)?\\s+(?:with\\s+|as\\s+)?(?:the\\s+)?(?:error\\s+category\\s+)?${TOKEN}`, 'g'),
  new RegExp(`\\b(?:error[ _]category|categor(?:y|ies))\`?\\s+(?:is\\s+|of\\s+)?${TOKEN}`, 'g'),
  new RegExp(`\\b\\d{3} for ${TOKEN}`, 'g'),
  new RegExp(`one vocabulary of [^:]*:\\s*${TOKEN}`, 'g'),
  /"error_category":\s*"([a-z]+(?:_[a-z]+)+)"/g,
];

export function categoryClaims(markdown: string): Array<LineClaim & { category: string }> {
  const text = markdown;
  const claims: Array<LineClaim & { category: string }> = [];
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  for (const trigger of CATEGORY_TRIGGERS) {
    for (const m of text.matchAll(trigger)) {
      claims.push({ category: m[1], line: lineOf(m.index) });
      // The list that follows the first name.
      const list = /^(?:,?\s+(?:or\s+|and\s+)?`([a-z]+(?:_[a-z]+)*)`)+/.exec(text.slice(m.index + m[0].length));
      if (!list) continue;
      for (const item of list[0].matchAll(/`([a-z]+(?:_[a-z]+)*)`/g)) claims.push({ category: item[1], line: lineOf(m.index) });
    }
  }
  return claims;
}

/** The codes of the exit code table after a line "Exit codes…" or "### Exit codes…": `| 3 | …` rows or `  3    …` help lines. */
export function exitCodeTable(text: string): number[] {
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^(#+\s*)?exit codes\b/i.test(line.trim()));
  if (start < 0) throw new Error('no exit code table');
  const codes: number[] = [];
  for (const line of lines.slice(start + 1)) {
    const row = /^\s*(?:\|\s*(\d+)\s*\||(\d+)\s{2,}\S)/.exec(line);
    if (row) codes.push(Number(row[1] ?? row[2]));
    // Table rows go on; so do a help text's indented continuation lines.
    else if (codes.length > 0 && !/^\s*\|/.test(line) && !/^\s{4,}\S/.test(line)) break;
  }
  return [...new Set(codes)].sort((a, b) => a - b);
}

/** "exit 3", "exits 1", "exit code 64", "exit code is 130", "exit code, 64" in prose. */
export function exitCodeClaims(markdown: string): Array<LineClaim & { code: number }> {
  const claims: Array<LineClaim & { code: number }> = [];
  for (const m of markdown.matchAll(/\bexit(?:s|ed)?(?:\s+code)?(?:\s+is|,)?\s+(\d+)\b/gi)) {
    claims.push({ code: Number(m[1]), line: markdown.slice(0, m.index).split('\n').length });
  }
  return claims;
}
