import { closeSync, openSync, writeSync } from 'node:fs';
import type { Writable } from 'node:stream';
import { exportedResultItem, type ResultEventData } from '../api/api-types';
import { CliUsageError } from '../errors';

/**
 * Where a followed job's results go, one JSON line per result item as it arrives: a file (written
 * synchronously, so a line is on disk before the next event is read) or stdout. A result id seen
 * before is never written again, whatever the stream replays.
 */
export class ResultSink {
  private readonly seen = new Set<string>();
  written = 0;

  private constructor(
    private readonly fd: number | null,
    private readonly stream: Writable | null,
    readonly path: string | null,
  ) {}

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
