import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CliUsageError } from '../errors';

/** What `gleaner crawl --as` can write per page (a crawl's formats, less the screenshot), and each one's file extension. */
export const PAGE_FILE_FORMATS = { markdown: 'md', text: 'txt', html: 'html', raw_html: 'html', links: 'tsv', page_info: 'json' } as const;
export type PageFileFormat = keyof typeof PAGE_FILE_FORMATS;

/** One path segment made safe: only letters, digits, `.`, `_` and `-`, never `.` or `..`, at most 100 characters. */
function safeSegment(segment: string): string {
  const clean = segment.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100);
  return /^\.*$/.test(clean) ? `_${clean}` : clean;
}

/**
 * The file of a page under the output directory: `<host>[_<port>]/<path>[_<query hash>].<ext>`, a path
 * ending in `/` as `index`, every segment made safe (no way out of the directory, whatever the URL).
 */
export function pageFilePath(url: string, format: PageFileFormat): string {
  const parsed = new URL(url);
  const host = safeSegment(parsed.host.replace(':', '_'));
  const segments = parsed.pathname.split('/').slice(1);
  if (segments.length === 0 || segments[segments.length - 1] === '') segments[segments.length === 0 ? 0 : segments.length - 1] = 'index';
  const safe = segments.map((segment) => safeSegment(decodeSafely(segment)));
  if (parsed.search) safe[safe.length - 1] += `_${createHash('sha256').update(parsed.search).digest('hex').slice(0, 10)}`;
  return join(host, ...safe) + `.${PAGE_FILE_FORMATS[format]}`;
}

function decodeSafely(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A page's format as the text of its file: text formats as they are, links as `URL<tab>text` lines, page_info as JSON. */
export function pageFileText(format: PageFileFormat, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (format === 'links') return (value as Array<{ url: string; text: string }>).map((l) => `${l.url}\t${l.text}\n`).join('');
  if (format === 'page_info') return `${JSON.stringify(value, null, 2)}\n`;
  const text = String(value);
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** Writes each completed page's format to its own file under a directory (created now, so a bad path fails before the crawl). */
export class PageFiles {
  private readonly used = new Set<string>();

  constructor(
    readonly dir: string,
    readonly format: PageFileFormat,
  ) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      throw new CliUsageError(`cannot write to ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  /** The file written for this page, or null (no such format on the page: a PDF has no HTML). */
  write(url: string, data: unknown): string | null {
    const text = pageFileText(this.format, (data as Record<string, unknown> | null)?.[this.format]);
    if (text === null) return null;
    const relative = this.unique(pageFilePath(url, this.format));
    const file = join(this.dir, relative);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    return relative;
  }

  /** Two URLs that make one name (they differ only in characters made safe) get `-2`, `-3`, … */
  private unique(relative: string): string {
    let candidate = relative;
    for (let n = 2; this.used.has(candidate); n++) candidate = relative.replace(/(\.[a-z]+)$/, `-${n}$1`);
    this.used.add(candidate);
    return candidate;
  }
}
