import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { CrawlMap, CrawlMapEntry } from '../api/api-types';
import type { CliContext } from '../context';
import { CliFailure, CliUsageError } from '../errors';
import { EXIT, type ExitCode } from '../exit-codes';
import type { CommandKit } from '../program';
import { intParser } from '../request-options';
import type { Colors } from '../util/colors';
import { formatCounts, formatInt, renderTable } from '../util/format';
import { statusColor } from './jobs-command';

const RESULT_FORMATS = ['json', 'jsonl', 'yaml'];
const MAP_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped'];

export function registerResults(program: Command, kit: CommandKit): void {
  program
    .command('results')
    .summary("download a job's results (json, jsonl or yaml)")
    .description("A job's page results, streamed as the service sends them (GET /api/v1/jobs/{id}/results); readable while it runs.")
    .argument('<job>', 'the job id')
    .option('--format <format>', `json, jsonl or yaml (default json)`)
    .option('--merge', "one list merging every page's items (duplicates once, failed pages left out)")
    .option('-o, --output <file>', 'write to this file instead of stdout')
    .addHelpText(
      'after',
      `
Examples:
  $ gleaner results 01JD0000000000000000000000 --format jsonl -o results.jsonl
  $ gleaner results 01JD0000000000000000000000 --merge --format yaml`,
    )
    .action(kit.action((ctx, [id], opts: { format?: string; merge?: boolean; output?: string }) => results(ctx, id!, opts)));

  program
    .command('crawl-map')
    .summary("a crawl's map: every URL it met, with status and errors")
    .description('Every URL a crawl met, with status, depth, HTTP status, tokens and errors (GET /api/v1/jobs/{id}/crawl-map).')
    .argument('<job>', 'the crawl job id')
    .option('--status <status>', `only entries with this status (${MAP_STATUSES.join(', ')})`)
    .option('--limit <n>', 'entries per page (1-1000; default: the whole map)', intParser('--limit', 1))
    .option('--offset <n>', 'skip this many entries', intParser('--offset', 0))
    .addHelpText(
      'after',
      `
Prints the totals, skipped URLs by reason, failures by category, then a table of entries
(--json: the service's JSON as it is).

Examples:
  $ gleaner crawl-map 01JD0000000000000000000000 --status failed
  $ gleaner crawl-map 01JD0000000000000000000000 --json | jq '.entries[] | select(.rate_limited)'`,
    )
    .action(kit.action((ctx, [id], opts: { status?: string; limit?: number; offset?: number }) => crawlMap(ctx, id!, opts)));
}

async function results(ctx: CliContext, id: string, opts: { format?: string; merge?: boolean; output?: string }): Promise<ExitCode> {
  if (opts.format !== undefined && !RESULT_FORMATS.includes(opts.format))
    throw new CliUsageError(`--format must be one of ${RESULT_FORMATS.join(', ')}`);
  if (ctx.json && opts.format !== undefined && opts.format !== 'json')
    throw new CliUsageError(`--json and --format ${opts.format} disagree`);
  const format = opts.format ?? 'json';
  const response = await ctx.client().send('GET', `/api/v1/jobs/${encodeURIComponent(id)}/results`, {
    query: { format, merge: opts.merge ? 'true' : undefined },
    signal: ctx.signal,
  });
  await writeBody(ctx, response, opts.output);
  return EXIT.ok;
}

async function crawlMap(ctx: CliContext, id: string, opts: { status?: string; limit?: number; offset?: number }): Promise<ExitCode> {
  if (opts.status !== undefined && !MAP_STATUSES.includes(opts.status))
    throw new CliUsageError(`--status must be one of ${MAP_STATUSES.join(', ')}`);
  const response = await ctx.client().send('GET', `/api/v1/jobs/${encodeURIComponent(id)}/crawl-map`, {
    query: { status: opts.status, limit: opts.limit, offset: opts.offset },
    headers: { accept: 'application/json' },
    signal: ctx.signal,
  });
  if (ctx.json) {
    await writeBody(ctx, response, undefined);
    return EXIT.ok;
  }
  const map = JSON.parse(await response.text()) as CrawlMap;
  const width = ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined;
  ctx.io.stdout.write(renderCrawlMap(map, ctx.out, width, opts.offset ?? 0, opts.limit !== undefined && !opts.status));
  return EXIT.ok;
}

/** Streams a response body to a file or stdout (ending a terminal's last line). */
async function writeBody(ctx: CliContext, response: Response, output: string | undefined): Promise<void> {
  const body = Readable.fromWeb(response.body as import('node:stream/web').ReadableStream<Uint8Array>);
  if (output) {
    try {
      await pipeline(body, createWriteStream(output));
    } catch (error) {
      throw new CliFailure(`cannot write ${output}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    ctx.info(`${ctx.err.green('✔')} written to ${output}`);
    return;
  }
  let last = 10;
  for await (const chunk of body) {
    const buffer = chunk as Buffer;
    if (buffer.length) last = buffer[buffer.length - 1];
    if (!ctx.io.stdout.write(buffer)) await new Promise((resolve) => ctx.io.stdout.once('drain', resolve));
  }
  if (last !== 10 && ctx.io.stdout.isTTY) ctx.io.stdout.write('\n');
}

export function renderCrawlMap(map: CrawlMap, c: Colors, width: number | undefined, offset: number, paged: boolean): string {
  const lines = [
    `${c.bold('Crawl')} ${map.job_id}  seed ${map.seed_url}  max depth ${map.max_depth}`,
    `${c.dim('entries')}   ${formatInt(map.total)} · ${formatInt(map.completed)} completed · ${formatInt(map.failed)} failed · ${formatInt(map.skipped)} skipped · ${formatInt(map.pending)} pending · ${formatInt(map.running)} running`,
    `${c.dim('skipped')}   ${formatCounts(map.skipped_by_reason)}`,
    `${c.dim('failures')}  ${formatCounts(map.error_summary?.by_category)}${map.error_summary?.has_rate_limit ? c.yellow('  (rate limits met)') : ''}`,
    '',
  ];
  if (map.entries.length === 0) return `${lines.join('\n')}No entries${offset ? ` after ${offset}` : ''}.\n`;
  const table = renderTable<CrawlMapEntry>(
    map.entries,
    [
      { header: 'STATUS', value: (e) => e.status, style: (t, e) => statusColor(e.status, c)(t) },
      { header: 'DEPTH', value: (e) => String(e.depth), align: 'right' },
      { header: 'HTTP', value: (e) => (e.http_status === null ? '-' : String(e.http_status)), align: 'right' },
      { header: 'TOKENS', value: (e) => formatInt(e.token_usage_input + e.token_usage_output), align: 'right' },
      { header: 'ERROR / REASON', value: (e) => `${e.error_category ?? ''}${e.rate_limited ? ' (429)' : ''}` },
      { header: 'URL', value: (e) => e.url, shrink: true },
    ],
    { maxWidth: width, header: c.dim },
  );
  const shown =
    paged && map.entries.length < map.total
      ? `\n${c.dim(`${offset + 1}-${offset + map.entries.length} of ${map.total} entries (--offset/--limit for more)`)}\n`
      : '';
  return `${lines.join('\n')}${table}${shown}`;
}
