/**
 * Finds the shell examples of the project's documents (README.md, docs/*.md, apps/cli/README.md) and reads
 * what each one promises. The rules (which blocks are examples, the `<!-- example: … -->` marker, the
 * expectations a command's trailing comment states) are in docs/contributing.md "Executable documents".
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/** Fence info strings whose blocks are shell examples. */
const SHELL_LANGS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

export interface DocExample {
  /** Repository-relative path of the document. */
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The block's text, without the fences. */
  code: string;
  /** `<!-- example: skip reason -->` before the fence: why it cannot run here ('' when the reason is missing). */
  skip?: string;
  /** `<!-- example: … -->` that is neither a skip nor understood: reported as an error. */
  badMarker?: string;
}

/** The documents whose examples run: README.md, docs/*.md and apps/cli/README.md. */
export function documentPaths(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), ...docs, join(root, 'apps', 'cli', 'README.md')];
}

export function examplesOf(root: string, path: string): DocExample[] {
  return findExamples(relative(root, path), readFileSync(path, 'utf8'));
}

/**
 * The shell blocks of a markdown text: fenced with ``` or ~~~ (any length; a fence closes with the same
 * character, at least as long) whose info string is a shell, or any fenced block whose first command is
 * `curl` or `gleaner`. The marker is the last non-blank line before the fence.
 */
export function findExamples(file: string, markdown: string): DocExample[] {
  const lines = markdown.split('\n');
  const examples: DocExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    const lang = open[2].toLowerCase();
    let end = i + 1;
    while (end < lines.length && !isClosingFence(lines[end], fence)) end++;
    const code = lines.slice(i + 1, end).join('\n');
    if (SHELL_LANGS.has(lang) || startsWithCommand(code)) {
      const example: DocExample = { file, line: i + 1, lang, code };
      const marker = markerBefore(lines, i);
      if (marker !== undefined) {
        const skip = /^skip\b\s*(.*)$/s.exec(marker);
        if (skip) example.skip = skip[1].trim();
        else example.badMarker = marker;
      }
      examples.push(example);
    }
    i = end;
  }
  return examples;
}

function isClosingFence(line: string, fence: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return m !== null && m[1][0] === fence[0] && m[1].length >= fence.length;
}

function startsWithCommand(code: string): boolean {
  const first = code.split('\n').find((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  return first !== undefined && /^\s*(\$\s+)?(curl|gleaner|npx gleaner)\b/.test(first);
}

function markerBefore(lines: string[], fenceIndex: number): string | undefined {
  let j = fenceIndex - 1;
  while (j >= 0 && lines[j].trim() === '') j--;
  if (j < 0) return undefined;
  const m = /^\s*<!--\s*example:\s*(.*?)\s*-->\s*$/.exec(lines[j]);
  return m ? m[1] : undefined;
}

/** One command as the shell reads it: continuation lines and quoted newlines joined. */
export interface ShellCommand {
  /** 1-based line within the block where the command starts. */
  line: number;
  /** The command text without its trailing comment. */
  text: string;
  /** The trailing `# …` comment of the command's last line, without `#` ('' when none). */
  comment: string;
}

/**
 * Splits a block into commands. A small reading of POSIX shell: single and double quotes (with `\` escapes
 * in double quotes), `\` + newline continuation, `#` starting a comment at the start of a word. Lines that
 * are only a comment are not commands. Heredocs are not supported (use a file or a quoted string).
 */
export function splitCommands(code: string): ShellCommand[] {
  const commands: ShellCommand[] = [];
  let text = '';
  let comment = '';
  let quote: '' | "'" | '"' = '';
  let startLine = 1;
  let line = 1;
  let inComment = false;
  const flush = (): void => {
    if (text.trim() !== '') commands.push({ line: startLine, text: text.trim(), comment: comment.trim() });
    text = '';
    comment = '';
  };
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (inComment) {
      if (c === '\n') {
        inComment = false;
        line++;
        flush();
        startLine = line;
      } else comment += c;
      continue;
    }
    if (quote === "'") {
      text += c;
      if (c === "'") quote = '';
      if (c === '\n') line++;
      continue;
    }
    if (c === '\\' && code[i + 1] === '\n') {
      // Continuation: the command goes on on the next line.
      text += ' ';
      i++;
      line++;
      continue;
    }
    if (quote === '"') {
      text += c;
      if (c === '\\' && i + 1 < code.length) text += code[++i];
      else if (c === '"') quote = '';
      if (c === '\n') line++;
      continue;
    }
    if (c === "'" || c === '"') {
      quote = c;
      text += c;
      continue;
    }
    if (c === '#' && (text === '' || /\s$/.test(text))) {
      inComment = true;
      continue;
    }
    if (c === '\n') {
      line++;
      flush();
      startLine = line;
      continue;
    }
    if (text === '' && /\s/.test(c)) continue;
    if (text === '') startLine = line;
    text += c;
  }
  if (quote !== '') throw new Error(`unterminated ${quote} quote in the block`);
  flush();
  return commands;
}

/** The programs the harness watches (its wrappers record each run): what a command's comment is checked against. */
export const CHECKED_PROGRAMS = ['curl', 'gleaner'] as const;
export type CheckedProgram = (typeof CHECKED_PROGRAMS)[number];

/** Checked programs a command runs, in order (`a | b`, `a && b`, `X=$(a)`); quoted text is not looked into. */
export function programsOf(text: string): CheckedProgram[] {
  const unquoted = text.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, "''");
  const found: CheckedProgram[] = [];
  for (const segment of unquoted.split(/\|\||&&|[|;&]|\$\(|\(/)) {
    const words = segment.trim().split(/\s+/);
    while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) words.shift();
    const program = words[0] === 'npx' ? words[1] : words[0];
    if ((CHECKED_PROGRAMS as readonly string[]).includes(program)) found.push(program as CheckedProgram);
  }
  return found;
}

/** What a command's trailing comment promises (docs/contributing.md "Executable documents"). */
export interface Expectation {
  /** The HTTP status (curl) — any 2xx when absent. */
  status?: number;
  /** The exit code (gleaner) — 0 when absent. */
  exit?: number;
  /** The fields of the JSON answer: a path (`data.markdown`) and, where the comment shows one, its value. */
  fields: Array<{ path: string; value?: ValueRule }>;
}

/** A shown value: exact, or a prefix when it ends with `...` or `…`; `"..."` alone shows only the field. */
export type ValueRule = { exact: string | number | boolean | null } | { prefix: string };

export function expectationOf(comment: string): Expectation {
  const expectation: Expectation = { fields: [] };
  let rest = comment.trim();
  const exit = /^exit\s+(\d+)\b/.exec(rest);
  if (exit) {
    expectation.exit = Number(exit[1]);
    rest = rest.slice(exit[0].length).trim();
  }
  const status = /^([1-5]\d\d)\b/.exec(rest);
  if (status) {
    expectation.status = Number(status[1]);
    rest = rest.slice(status[0].length).trim();
  }
  if (rest.startsWith('{')) expectation.fields = shownFields(rest);
  return expectation;
}

/**
 * The fields of a shown JSON-like object: `{"job_id", "url", "data": {"markdown": "# Quotes..."}, ...}`.
 * Keys are quoted names; a key followed by `,` or `}` is shown without a value; `...` stands for more.
 */
export function shownFields(shown: string): Array<{ path: string; value?: ValueRule }> {
  const fields: Array<{ path: string; value?: ValueRule }> = [];
  const path: string[] = [];
  let i = 0;
  const skipSpace = (): void => {
    while (i < shown.length && /\s/.test(shown[i])) i++;
  };
  const readString = (): string => {
    let out = '';
    i++; // opening quote
    while (i < shown.length && shown[i] !== '"') {
      if (shown[i] === '\\') i++;
      out += shown[i++];
    }
    i++;
    return out;
  };
  const readObject = (): void => {
    i++; // {
    while (i < shown.length) {
      skipSpace();
      if (shown[i] === '}') {
        i++;
        return;
      }
      if (shown[i] === ',') {
        i++;
        continue;
      }
      if (shown[i] === '"') {
        const key = readString();
        skipSpace();
        const fieldPath = [...path, key].join('.');
        if (shown[i] !== ':') {
          fields.push({ path: fieldPath });
          continue;
        }
        i++;
        skipSpace();
        if (shown[i] === '{') {
          fields.push({ path: fieldPath });
          path.push(key);
          readObject();
          path.pop();
        } else fields.push({ path: fieldPath, value: readValue() });
        continue;
      }
      // `...`, `…` or anything else unquoted: skip to the next separator at this level.
      skipOther();
    }
  };
  const readValue = (): ValueRule | undefined => {
    if (shown[i] === '"') {
      const text = readString();
      if (text === '...' || text === '…') return undefined;
      const prefix = /^(.*?)(\.\.\.|…)$/s.exec(text);
      return prefix ? { prefix: prefix[1] } : { exact: text };
    }
    const literal = /^(-?\d+(\.\d+)?|true|false|null)(?=\s*[,}])/.exec(shown.slice(i));
    if (literal) {
      i += literal[0].length;
      return { exact: JSON.parse(literal[0]) as number | boolean | null };
    }
    skipOther();
    return undefined;
  };
  const skipOther = (): void => {
    let depth = 0;
    while (i < shown.length) {
      const c = shown[i];
      if (c === '"') {
        readString();
        continue;
      }
      if (c === '{' || c === '[') depth++;
      else if (c === '}' || c === ']') {
        if (depth === 0) return;
        depth--;
      } else if (c === ',' && depth === 0) return;
      i++;
    }
  };
  skipSpace();
  if (shown[i] === '{') readObject();
  return fields;
}

/** Checks an answer against the shown fields; returns what does not match (empty when all do). */
export function mismatches(answer: unknown, fields: Expectation['fields']): string[] {
  const problems: string[] = [];
  for (const field of fields) {
    let value: unknown = answer;
    let present = true;
    for (const key of field.path.split('.')) {
      if (value === null || typeof value !== 'object' || !(key in value)) {
        present = false;
        break;
      }
      value = (value as Record<string, unknown>)[key];
    }
    if (!present) {
      problems.push(`${field.path} is missing`);
      continue;
    }
    const rule = field.value;
    if (!rule) continue;
    if ('prefix' in rule) {
      if (typeof value !== 'string' || !value.startsWith(rule.prefix))
        problems.push(`${field.path} is ${JSON.stringify(value)?.slice(0, 80)}, not starting with ${JSON.stringify(rule.prefix)}`);
    } else if (value !== rule.exact) problems.push(`${field.path} is ${JSON.stringify(value)}, not ${JSON.stringify(rule.exact)}`);
  }
  return problems;
}
