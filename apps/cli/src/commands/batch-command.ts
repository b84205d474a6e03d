import type { Command } from 'commander';
import type { CrawlStarted } from '../api/api-types';
import type { CliContext } from '../context';
import { CliUsageError } from '../errors';
import type { ExitCode } from '../exit-codes';
import { ResultSink } from '../follow/result-sink';
import { afterStart, startedJobView } from '../follow/started-job';
import { watchJob } from '../follow/watch';
import type { CommandKit } from '../program';
import { intParser, llmConfig, numberParser, type ModelOptions } from '../request-options';
import { readSchemaOption } from '../schema-input';
import { parseList, readList } from '../url-list';

interface BatchOptions extends ModelOptions {
  schema?: string;
  schemaId?: string;
  siteId?: string;
  concurrency?: number;
  delayMs?: number;
  fetchMode?: string;
  extractionMode?: string;
  ignoreRobots?: boolean;
  maxCost?: number;
  provenance?: string;
  grounding?: string;
  output?: string;
  detach?: boolean;
  reconnectTimeout?: number;
}

/** URLs one JSON body takes (the service's array limit); longer lists go as a text/plain list body. */
const JSON_MAX_URLS = 10_000;

const HELP_AFTER = `
Reads a list of URLs (one per line; blank lines and # comments skipped) from a
file, or from stdin with "-", starts a batch job that extracts each of them
once, and follows it like "gleaner crawl": a live progress line, each page's
result as one JSON line (to --output, or stdout), then a summary.

Up to 10,000 URLs go in a JSON body with every option. Longer lists are sent
as a text/plain list body: the schema by --schema-id (or the --site-id's
default schema) and the options of the saved site; the model from your
stored chain.

Examples:
  $ gleaner batch urls.txt --schema product.yaml -o products.jsonl
  $ grep '/product/' sitemap-urls.txt | gleaner batch - --schema-id product --concurrency 8 -o out.jsonl`;

export function registerBatch(program: Command, kit: CommandKit): void {
  const command = program
    .command('batch')
    .summary('extract every URL of a list (a file, or - for stdin)')
    .description('Starts a batch (POST /api/v1/batch/extract) and follows its event stream until it ends.')
    .argument('<file>', 'the URL list: a file, or - for stdin');
  kit.addSchemaOptions(command);
  command
    .option('--concurrency <n>', 'pages fetched at once (service default 4)', intParser('--concurrency', 1))
    .option('--delay-ms <ms>', 'pause between requests to a host', intParser('--delay-ms', 0))
    .addOption(kit.fetchModeOption())
    .addOption(kit.extractionModeOption())
    .option('--ignore-robots', 'do not read robots.txt (nor its Crawl-delay); only for sites you may crawl so')
    .option('--max-cost <usd>', 'cost cap in USD: no new page starts beyond it', numberParser('--max-cost', 0));
  kit.addProvenanceOptions(command);
  kit.addModelOptions(command);
  kit.addFollowOptions(command);
  command.addHelpText('after', HELP_AFTER).action(kit.action((ctx, [file], opts: BatchOptions) => batch(ctx, file ?? '-', opts)));
}

async function batch(ctx: CliContext, file: string, opts: BatchOptions): Promise<ExitCode> {
  if (opts.schema && opts.schemaId) throw new CliUsageError('give --schema or --schema-id, not both');
  if (!opts.schema && !opts.schemaId && !opts.siteId)
    throw new CliUsageError('--schema (a file or inline JSON/YAML) or --schema-id is required');
  if (file === '-' && opts.schema === '-') throw new CliUsageError('stdin cannot hold both the URL list and the schema');
  const urls = parseList(await readList(ctx, file));
  if (urls.length === 0) throw new CliUsageError(`${file === '-' ? 'stdin' : file} lists no URL`);
  const options = defined({
    concurrency: opts.concurrency,
    delay_ms: opts.delayMs,
    fetch_mode: opts.fetchMode,
    respect_robots: opts.ignoreRobots ? false : undefined,
    provenance: opts.provenance,
    grounding: opts.grounding,
  });
  const client = ctx.client();
  let request: Parameters<typeof client.json>[2];
  if (urls.length <= JSON_MAX_URLS) {
    request = {
      body: defined({
        urls,
        schema: opts.schema !== undefined ? await readSchemaOption(opts.schema, ctx.io.stdin) : undefined,
        schema_id: opts.schemaId,
        site_id: opts.siteId,
        extraction_mode: opts.extractionMode,
        options: Object.keys(options).length ? options : undefined,
        max_cost_usd: opts.maxCost,
        llm_config: llmConfig(opts, ctx),
      }),
    };
  } else {
    const perRequest = [
      opts.schema && '--schema',
      ...Object.keys(options),
      opts.maxCost !== undefined && '--max-cost',
      llmConfig(opts, ctx) && '--model',
    ];
    const refused = perRequest.filter(Boolean);
    if (refused.length > 0) {
      throw new CliUsageError(
        `a list of more than ${JSON_MAX_URLS} URLs is sent as a list body: give the schema by --schema-id and the options by --site-id (not ${refused.join(', ')})`,
      );
    }
    request = {
      text: { contentType: 'text/plain; charset=utf-8', data: `${urls.join('\n')}\n` },
      query: { schema_id: opts.schemaId, site_id: opts.siteId, extraction_mode: opts.extractionMode },
      timeoutMs: 0,
    };
  }
  const sink = opts.output && !opts.detach ? ResultSink.toFile(opts.output) : undefined;
  let started: CrawlStarted & { url_count?: number; duplicate_count?: number };
  try {
    started = (await client.json<typeof started>('POST', '/api/v1/batch/extract', request)).body;
  } catch (error) {
    sink?.close();
    throw error;
  }
  const ended = afterStart(ctx, started, 'Batch', opts.detach);
  if (ended !== null) return ended;
  const duplicates = started.duplicate_count ? `, ${started.duplicate_count} duplicate(s) removed` : '';
  ctx.info(
    `${ctx.err.cyan('Batch')} ${started.job_id} started: ${started.url_count ?? urls.length} URLs${duplicates} ${ctx.err.dim('(Ctrl-C to cancel or detach)')}`,
  );
  const job = startedJobView(started, 'batch', urls[0]);
  return watchJob(ctx, client, job, { sink, maxPages: started.url_count, reconnectTimeoutSeconds: opts.reconnectTimeout });
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
