/** Where benchmarks find the large ground-truth corpus, which is not part of the repository. */
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const CORPUS_ENV = 'GLEANER_CORPUS_DIR';
const REPO_ROOT = resolve(__dirname, '../..');
/** Default: a `shared/corpus` folder beside the repository. */
export const DEFAULT_CORPUS_DIR = resolve(REPO_ROOT, '../shared/corpus');

const LAYOUT = [
  '  articles/ground-truth.json          {"<id>": {"articleBody", "url"}}',
  '  articles/html/<id>.html.gz          raw article pages',
  '  swde/pages/book-<site>/<NNNN>.htm.gz',
  '  swde/groundtruth/book/book-<site>-<attribute>.txt',
  '  readability/pages/<case>/...        (optional)',
  '  quotes/quotes.jl, quotes/authors.jl (optional; the specs use the vendored copy in test/fixtures/corpus)',
].join('\n');

/**
 * The corpus directory: `$GLEANER_CORPUS_DIR` (relative paths against the working directory), else
 * `../shared/corpus` beside the repository. When it (or one of `required`, e.g. `articles`) is missing,
 * prints what to set and the expected layout, and exits with status 1.
 */
export function corpusDir(required: string[] = []): string {
  const fromEnv = process.env[CORPUS_ENV]?.trim();
  const dir = fromEnv ? resolve(fromEnv) : DEFAULT_CORPUS_DIR;
  const missing = !isDir(dir) ? [dir] : required.filter((entry) => !existsSync(join(dir, entry))).map((entry) => join(dir, entry));
  if (missing.length === 0) return dir;
  console.error(
    [
      `Benchmark corpus not found; missing: ${missing.join(', ')}.`,
      `Set ${CORPUS_ENV} to the corpus directory (${fromEnv ? `it is "${fromEnv}"` : `default: ${DEFAULT_CORPUS_DIR}`}).`,
      'Expected layout:',
      LAYOUT,
    ].join('\n'),
  );
  process.exit(1);
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
