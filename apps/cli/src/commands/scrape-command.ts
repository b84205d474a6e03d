import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { ApiClient } from '../api/api-client';
import type { CliContext } from '../context';
import { ApiError, CliFailure, CliUsageError } from '../errors';
import { EXIT, type ExitCode } from '../exit-codes';
import { awaitJobEnd } from '../follow/await-job';
import { pageFileText } from '../follow/page-files';
import type { CommandKit } from '../program';
import { collect, intParser } from '../request-options';
import { formatDuration } from '../util/format';

/** What `--as` prints (each a scrape format; the service's formats are named the same). */
export const AS_FORMATS = ['markdown', 'text', 'html', 'raw_html', 'links', 'page_info', 'screenshot'] as const;
type AsFormat = (typeof AS_FORMATS)[number];

interface ScrapeOptions {
  as: AsFormat;
  full?: boolean;
  fetchMode?: string;
  header?: string[];
  cookie?: string[];
  userAgent?: string;
  waitFor?: string;
  timeout?: number;
  fullPage?: boolean;
  output?: string;
}

/** POST /scrape (200), as the CLI reads it. */
interface ScrapeAnswer {
  job_id: string;
  url: string;
  fetched_at: string;
  data: Record<string, unknown>;
  metadata: Record<string, unknown>;
}

const HELP_AFTER = `
Prints the page in one format on stdout (markdown by default), and a one-line
note on stderr. --json prints the whole answer instead. No schema, no model.

--as links prints one "URL<tab>anchor text" line per link; --as page_info
prints JSON; --as screenshot needs -o FILE (a PNG; the fetch renders).

Examples:
  $ gleaner scrape https://docs.example/guide > guide.md
  $ gleaner scrape https://docs.example/report.pdf --as text
  $ gleaner scrape https://app.example/dash --wait-for '#chart' \\
      --cookie session=abc123 --as screenshot -o dash.png
  $ gleaner scrape https://shop.example/p/42 --header 'Accept-Language: de' --as links`;

export function registerScrape(program: Command, kit: CommandKit): void {
  program
    .command('scrape')
    .summary('one page as markdown, text, HTML, links, page info or a screenshot')
    .description(
      "Fetches one page and prints it in a format, without a schema or a model (POST /api/v1/scrape). Headers and cookies go to the page's host only.",
    )
    .argument('<url>', 'the page')
    .addOption(kit.choiceOption('--as <format>', 'what to print', AS_FORMATS, 'markdown'))
    .option('--full', 'the whole page minus site chrome instead of the main content only')
    .addOption(kit.fetchModeOption())
    .option('-H, --header <name: value>', "a request header for the page's host (repeatable)", collect)
    .option('--cookie <name=value>', "a cookie for the page's host (repeatable)", collect)
    .option('--user-agent <string>', 'the User-Agent to send')
    .option('--wait-for <selector|ms>', 'browser: wait for a CSS selector, or a number of milliseconds')
    .option('--timeout <ms>', 'deadline of the fetch in milliseconds (1000-120000)', intParser('--timeout', 1000))
    .option('--full-page', 'with --as screenshot: the whole page, not only the viewport')
    .option('-o, --output <file>', 'write to this file instead of stdout (required for --as screenshot)')
    .addHelpText('after', HELP_AFTER)
    .action(kit.action((ctx, [url], opts: ScrapeOptions) => scrape(ctx, url!, opts)));
}

async function scrape(ctx: CliContext, url: string, opts: ScrapeOptions): Promise<ExitCode> {
  if (opts.as === 'screenshot' && !opts.output) throw new CliUsageError('--as screenshot needs -o FILE (a PNG)');
  const body: Record<string, unknown> = {
    url,
    formats: ctx.json ? [opts.as, 'page_info'] : [opts.as],
    only_main_content: !opts.full,
    fetch_mode: opts.fetchMode,
    headers: opts.header ? parseHeaders(opts.header) : undefined,
    cookies: opts.cookie ? parseCookies(opts.cookie) : undefined,
    user_agent: opts.userAgent,
    wait_for: opts.waitFor !== undefined ? parseWaitFor(opts.waitFor) : undefined,
    timeout_ms: opts.timeout,
    full_page_screenshot: opts.fullPage,
  };
  const client = ctx.client();
  let answer: ScrapeAnswer;
  try {
    // No client timeout: the service answers within GLEANER_EXTRACT_WAIT_MS (504 with the job id after it).
    answer = (await client.json<ScrapeAnswer>('POST', '/api/v1/scrape', { body, timeoutMs: 0, signal: ctx.signal })).body;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 504 && typeof error.problem.job_id === 'string')) throw error;
    ctx.info(ctx.err.yellow(`The service stopped waiting (${error.problem.detail ?? '504'}); following job ${error.problem.job_id}…`));
    answer = await finishLate(ctx, client, error.problem.job_id);
  }

  if (opts.as === 'screenshot') {
    await writeScreenshot(ctx, client, answer, opts.output!);
  } else {
    const text = ctx.json ? `${JSON.stringify(answer, null, 2)}\n` : render(opts.as, answer.data[opts.as]);
    if (opts.output) writeFile(opts.output, text);
    else ctx.io.stdout.write(text);
  }
  const meta = answer.metadata;
  const parts = [
    `job ${answer.job_id}`,
    String(meta.fetch_mode ?? ''),
    `${String(meta.status_code ?? '')} ${String(meta.content_type ?? '')}`.trim(),
    typeof meta.fetch_duration_ms === 'number' ? `fetch ${formatDuration(meta.fetch_duration_ms)}` : null,
    opts.output ? `written to ${opts.output}` : null,
  ].filter(Boolean);
  ctx.info(`${ctx.err.green('✔')} ${parts.join(ctx.err.dim(' · '))}`);
  return EXIT.ok;
}

/** Text formats as they are (one final newline); links as lines; page_info as JSON. */
function render(format: AsFormat, value: unknown): string {
  const text = format === 'screenshot' ? null : pageFileText(format, value);
  if (text === null) throw new CliFailure(`the page has no ${format} (a PDF has no HTML); try --as markdown or --as text`);
  return text;
}

async function writeScreenshot(ctx: CliContext, client: ApiClient, answer: ScrapeAnswer, file: string): Promise<void> {
  const path = answer.data.screenshot;
  if (typeof path !== 'string') throw new CliFailure('the page has no screenshot (a PDF is not rendered)');
  const png = await client.bytes(path, ctx.signal);
  writeFile(file, png);
  if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
}

function writeFile(file: string, content: string | Buffer): void {
  try {
    writeFileSync(file, content);
  } catch (error) {
    throw new CliFailure(`cannot write ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** `Name: value` → {Name: value} (the first colon splits). */
export function parseHeaders(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw new CliUsageError(`--header must be "Name: value", got "${value}"`);
    out[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return out;
}

/** `name=value` → {name: value}. */
export function parseCookies(values: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const eq = value.indexOf('=');
    if (eq <= 0) throw new CliUsageError(`--cookie must be "name=value", got "${value}"`);
    out[value.slice(0, eq).trim()] = value.slice(eq + 1).trim();
  }
  return out;
}

/** A whole number is milliseconds; anything else a CSS selector. */
export function parseWaitFor(value: string): { selector: string } | { ms: number } {
  return /^\d+$/.test(value.trim()) ? { ms: Number(value.trim()) } : { selector: value };
}

/** The job outlived the service's wait: follow it to the end, then read its result item. */
async function finishLate(ctx: CliContext, client: ApiClient, jobId: string): Promise<ScrapeAnswer> {
  const done = await awaitJobEnd(ctx, client, jobId, 'scrape');
  const items = (
    await client.json<Array<{ url: string; data: Record<string, unknown>; metadata: Record<string, unknown> }>>(
      'GET',
      `/api/v1/jobs/${encodeURIComponent(jobId)}/results`,
      { query: { format: 'json' } },
    )
  ).body;
  const item = items.find((i) => i.data !== null);
  if (!item) throw new CliFailure(`scrape ${done.status} without a result`);
  const { fetched_at, ...metadata } = item.metadata;
  return { job_id: jobId, url: item.url, fetched_at: String(fetched_at ?? done.completed_at ?? ''), data: item.data, metadata };
}
