import type { Command } from 'commander';
import type { CrawlStarted } from '../api/api-types';
import type { CliContext } from '../context';
import { CliUsageError } from '../errors';
import type { ExitCode } from '../exit-codes';
import { PAGE_FILE_FORMATS, type PageFileFormat } from '../follow/page-files';
import { ResultSink } from '../follow/result-sink';
import { afterStart, startedJobView } from '../follow/started-job';
import { watchJob } from '../follow/watch';
import type { CommandKit } from '../program';
import { collect, intParser, llmConfig, numberParser, type ModelOptions } from '../request-options';
import { readSchemaOption } from '../schema-input';

interface CrawlOptions extends ModelOptions {
  schema?: string;
  schemaId?: string;
  siteId?: string;
  maxPages?: number;
  maxDepth?: number;
  follow?: string;
  followSelector?: string;
  include?: string[];
  exclude?: string[];
  concurrency?: number;
  delayMs?: number;
  fetchMode?: string;
  extractionMode?: string;
  useSitemap?: boolean;
  ignoreRobots?: boolean;
  maxCost?: number;
  canonicalize?: string;
  dedupe?: string;
  copyDuplicates?: boolean;
  provenance?: string;
  grounding?: string;
  output?: string;
  as?: PageFileFormat;
  outDir?: string;
  full?: boolean;
  detach?: boolean;
  reconnectTimeout?: number;
}

const HELP_AFTER = `
Starts a crawl job and follows it: a live progress line on a terminal (plain
lines otherwise), each page's result as one JSON line (to --output, or stdout),
then a summary. Ctrl-C asks whether to cancel the crawl or detach from it; a
dropped connection is resumed where it stopped.

Examples:
  $ gleaner crawl https://quotes.toscrape.com/ --schema quotes.yaml \\
      --max-pages 50 --follow '/page/\\d+/$' -o quotes.jsonl
  $ gleaner crawl https://shop.example/ --schema-id product --include '/p/' \\
      --exclude '/cart' --concurrency 2 --model openai/gpt-4o-mini --json -o products.jsonl
  $ JOB=$(gleaner crawl https://blog.example/ --schema post.json --detach)
  $ gleaner jobs watch "$JOB" -o posts.jsonl

Without a schema, --as FORMAT stores every page in that format (no model, no
cost): as JSON lines like any result, or with --out-dir DIR one file per page
(DIR/<host>/<path>.md for markdown; a path ending in / is index.md).
  $ gleaner crawl https://docs.example/ --as markdown --out-dir docs-md \
      --max-pages 200 --max-depth 3`;

export function registerCrawl(program: Command, kit: CommandKit): void {
  const command = program
    .command('crawl')
    .summary('crawl from a seed URL, extracting every page')
    .description('Starts a crawl (POST /api/v1/crawl) and follows its event stream until it ends.')
    .argument('[url]', 'the seed URL (optional with --site-id)');
  kit.addSchemaOptions(command);
  command
    .option('--max-pages <n>', 'pages to extract at most (service default 10)', intParser('--max-pages', 1))
    .option('--max-depth <n>', 'link depth from the seed (service default 1)', intParser('--max-depth', 0))
    .option('--follow <pattern>', 'follow only links whose absolute URL matches this RE2 pattern')
    .option('--follow-selector <css>', 'follow only the links matched by this CSS selector')
    .option('--include <pattern>', 'crawl only URLs matching this RE2 pattern (repeatable)', collect)
    .option('--exclude <pattern>', 'never crawl URLs matching this RE2 pattern (repeatable)', collect)
    .option('--concurrency <n>', 'pages fetched at once (service default 4)', intParser('--concurrency', 1))
    .option('--delay-ms <ms>', 'pause between requests to a host', intParser('--delay-ms', 0))
    .addOption(kit.fetchModeOption())
    .addOption(kit.extractionModeOption())
    .option('--use-sitemap', "also start from the site's sitemap.xml")
    .option('--ignore-robots', 'do not read robots.txt (nor its Crawl-delay); only for sites you may crawl so')
    .option('--max-cost <usd>', 'cost cap in USD: no new page starts beyond it', numberParser('--max-cost', 0))
    .addOption(
      kit.choiceOption('--canonicalize <mode>', 'strict: drop tracking parameters, sort queries, www. and bare host as one', [
        'default',
        'strict',
      ]),
    )
    .addOption(kit.choiceOption('--dedupe <mode>', 'skip pages repeating an earlier one before the model call', ['off', 'exact', 'near']))
    .option('--copy-duplicates', "give each duplicate a copy of its original's result");
  kit.addProvenanceOptions(command);
  kit.addModelOptions(command);
  command
    .addOption(
      kit.choiceOption('--as <format>', 'no schema: store every page in this format (no model call)', Object.keys(PAGE_FILE_FORMATS)),
    )
    .option('--out-dir <dir>', 'with --as (markdown by default): write one file per page under this directory')
    .option('--full', 'with --as: the whole page minus site chrome instead of the main content only');
  kit.addFollowOptions(command);
  command.addHelpText('after', HELP_AFTER).action(kit.action((ctx, [url], opts: CrawlOptions) => crawl(ctx, url, opts)));
}

async function crawl(ctx: CliContext, url: string | undefined, opts: CrawlOptions): Promise<ExitCode> {
  if (!url && !opts.siteId) throw new CliUsageError('a seed URL is required (or --site-id with a saved site)');
  if (opts.schema && opts.schemaId) throw new CliUsageError('give --schema or --schema-id, not both');
  if (opts.outDir && !opts.as) opts.as = 'markdown';
  if (opts.as && (opts.schema || opts.schemaId))
    throw new CliUsageError('--as stores pages without a schema: drop --schema/--schema-id or --as');
  if (opts.outDir && opts.output) throw new CliUsageError('give --out-dir (a file per page) or -o (JSON lines), not both');
  if (opts.full && !opts.as) throw new CliUsageError('--full goes with --as');
  if (!opts.as && !opts.schema && !opts.schemaId && !opts.siteId)
    throw new CliUsageError('--schema (a file or inline JSON/YAML), --schema-id or --as FORMAT is required');
  const options = defined({
    max_pages: opts.maxPages,
    max_depth: opts.maxDepth,
    follow_pattern: opts.follow,
    follow_selector: opts.followSelector,
    include_patterns: opts.include,
    exclude_patterns: opts.exclude,
    concurrency: opts.concurrency,
    delay_ms: opts.delayMs,
    fetch_mode: opts.fetchMode,
    use_sitemap: opts.useSitemap ? true : undefined,
    respect_robots: opts.ignoreRobots ? false : undefined,
    max_cost_usd: opts.maxCost,
    canonicalize: opts.canonicalize,
    dedupe: opts.dedupe,
    copy_duplicates: opts.copyDuplicates ? true : undefined,
    provenance: opts.provenance,
    grounding: opts.grounding,
  });
  const body = defined({
    url,
    schema: opts.schema !== undefined ? await readSchemaOption(opts.schema, ctx.io.stdin) : undefined,
    schema_id: opts.schemaId,
    formats: opts.as ? [opts.as] : undefined,
    only_main_content: opts.as && opts.full ? false : undefined,
    site_id: opts.siteId,
    extraction_mode: opts.extractionMode,
    options: Object.keys(options).length ? options : undefined,
    llm_config: opts.as ? undefined : llmConfig(opts, ctx),
  });
  const client = ctx.client();
  // The file is created before the crawl starts, so a bad path costs nothing.
  const sink = opts.detach
    ? undefined
    : opts.outDir
      ? ResultSink.toPageFiles(opts.outDir, opts.as!)
      : opts.output
        ? ResultSink.toFile(opts.output)
        : undefined;
  let started: CrawlStarted;
  try {
    started = (await client.json<CrawlStarted>('POST', '/api/v1/crawl', { body })).body;
  } catch (error) {
    sink?.close();
    throw error;
  }

  const ended = afterStart(ctx, started, 'Crawl', opts.detach);
  if (ended !== null) return ended;

  ctx.info(`${ctx.err.cyan('Crawl')} ${started.job_id} started${url ? ` at ${url}` : ''} ${ctx.err.dim('(Ctrl-C to cancel or detach)')}`);
  const job = startedJobView(started, 'crawl', url ?? null);
  return watchJob(ctx, client, job, { sink, maxPages: opts.maxPages, reconnectTimeoutSeconds: opts.reconnectTimeout });
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
