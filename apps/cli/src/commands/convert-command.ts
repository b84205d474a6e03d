import { availableParallelism } from 'node:os';
import { ContentPool, type ConversionMode, type LinkUrlPolicy, type OutputFormat } from '@app/content';
import { parseFlags } from '../arg-parser';
import { EXIT_OK, UsageError, type CliCommand, type CliIo } from '../command';
import { readLines } from '../jsonl-lines';
import { OrderedWriter } from '../ordered-writer';

const USAGE = `Usage: gleaner convert --mode full|main --jsonl [--threads N] [--format markdown|text]
                       [--link-urls prose|all|none] [--timeout-ms MS]

Reads JSON lines {"id", "url", "html"} from stdin and writes {"id", "text"} lines to stdout in
input order; a line that cannot be converted yields {"id", "error"} instead.`;

/** Results in flight per worker thread: enough to keep workers busy, small enough to bound memory. */
const IN_FLIGHT_PER_THREAD = 4;

interface InputRecord {
  id?: unknown;
  url?: unknown;
  html?: unknown;
}

export const convertCommand: CliCommand = {
  name: 'convert',
  summary: 'HTML → markdown for JSON lines on stdin (full page or main content)',
  usage: USAGE,
  async run(args: string[], io: CliIo): Promise<number> {
    const flags = parseFlags(args, {
      mode: { type: 'string' },
      jsonl: { type: 'boolean' },
      threads: { type: 'string' },
      format: { type: 'string' },
      'link-urls': { type: 'string' },
      'timeout-ms': { type: 'string' },
    });
    const mode = oneOf<ConversionMode>(flags.mode, ['full', 'main'], 'mode');
    if (mode === undefined) throw new UsageError('--mode is required');
    if (flags.jsonl !== true) throw new UsageError('--jsonl is required (JSON lines is the only input format)');
    const format = oneOf<OutputFormat>(flags.format, ['markdown', 'text'], 'format') ?? 'markdown';
    const linkUrls = oneOf<LinkUrlPolicy>(flags['link-urls'], ['prose', 'all', 'none'], 'link-urls') ?? 'prose';
    const threads = positiveInt(flags.threads, 'threads') ?? Math.min(availableParallelism(), 4);
    const taskTimeoutMs = positiveInt(flags['timeout-ms'], 'timeout-ms') ?? 30_000;

    const pool = new ContentPool({ threads, taskTimeoutMs });
    const writer = new OrderedWriter(io.stdout, threads * IN_FLIGHT_PER_THREAD);
    try {
      let lineNo = 0;
      for await (const line of readLines(io.stdin)) {
        lineNo++;
        if (line.trim() === '') continue;
        await writer.submit(convertLine(pool, line, lineNo, { mode, format, linkUrls }));
      }
      await writer.flush();
    } finally {
      await pool.close();
    }
    return EXIT_OK;
  },
};

/** Never rejects: every failure becomes an `{id, error}` line. */
async function convertLine(
  pool: ContentPool,
  line: string,
  lineNo: number,
  options: { mode: ConversionMode; format: OutputFormat; linkUrls: LinkUrlPolicy },
): Promise<string> {
  let record: InputRecord;
  try {
    record = JSON.parse(line) as InputRecord;
  } catch {
    return JSON.stringify({ id: null, line: lineNo, error: 'invalid JSON' });
  }
  if (typeof record !== 'object' || record === null || Array.isArray(record)) {
    return JSON.stringify({ id: null, line: lineNo, error: 'a line must be a JSON object {id, url, html}' });
  }
  const id = record.id ?? null;
  if (typeof record.html !== 'string') return JSON.stringify({ id, error: 'html must be a string' });
  if (record.url !== undefined && typeof record.url !== 'string') return JSON.stringify({ id, error: 'url must be a string' });
  try {
    const result = await pool.convert({ html: record.html, url: record.url ?? '', ...options });
    return JSON.stringify({ id, text: result.markdown });
  } catch (error) {
    return JSON.stringify({ id, error: error instanceof Error ? error.message : String(error) });
  }
}

function oneOf<T extends string>(value: string | boolean | undefined, allowed: readonly T[], name: string): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`--${name} must be one of ${allowed.join(', ')}`);
  }
  return value as T;
}

function positiveInt(value: string | boolean | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}
