import { closeSync, openSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { exportedResultItem, type ResultEventData } from '../api/api-types';
import { CliUsageError } from '../errors';
import { PageFiles, type PageFileFormat } from './page-files';

/**
 * Where a followed job's results go, one JSON line per result item as it arrives: a file (written
 * synchronously, so a line is on disk before the next event is read) or stdout; or, for a crawl of
 * formats, one file per completed page under a directory. A result id seen before is never written
 * again, whatever the stream replays.
 */
export class ResultSink {
  private readonly seen = new Set<string>();
  written = 0;

  private constructor(
    private readonly fd: number | null,
    private readonly stream: Writable | null,
    readonly path: string | null,
    private readonly pages: PageFiles | null = null,
  ) {}

  get unit(): 'lines' | 'files' {
    return this.pages ? 'files' : 'lines';
  }

  /** One file per completed page, its `format` only (gleaner crawl --as FORMAT --out-dir DIR); the directory is made now. */
  static toPageFiles(dir: string, format: PageFileFormat): ResultSink {
    return new ResultSink(null, null, dir, new PageFiles(dir, format));
  }

  /** Creates (or truncates) the file now, so a bad path fails before any job starts. */
  static toFile(path: string): ResultSink {
    try {
      return new ResultSink(openSync(path, 'w'), null, path);
    } catch (error) {
      throw new CliUsageError(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  static toStream(stream: Writable): ResultSink {
    return new ResultSink(null, stream, null);
  }

  /** Writes the item unless its id was written already; returns whether it was written. */
  write(item: ResultEventData): boolean {
    if (this.seen.has(item.id)) return false;
    this.seen.add(item.id);
    if (this.pages) {
      if (item.status !== 'completed' || this.pages.write(item.url, item.data) === null) return false;
      this.written++;
      return true;
    }
    const line = `${JSON.stringify(exportedResultItem(item))}\n`;
    if (this.fd !== null) writeSync(this.fd, line);
    else this.stream!.write(line);
    this.written++;
    return true;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
  }
}
