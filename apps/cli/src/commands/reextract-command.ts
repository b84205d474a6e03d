import { Option, type Command } from 'commander';
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

interface ReextractOptions extends ModelOptions {
  schema?: string;
  schemaId?: string;
  siteId?: string;
  only?: string;
  concurrency?: number;
  extractionMode?: string;
  maxCost?: number;
  output?: string;
  detach?: boolean;
  reconnectTimeout?: number;
}

const HELP_AFTER = `
Extracts a finished job's archived pages again (crawl, batch, reextract and
warc-extract jobs keep them unless run with archive: false), with a new schema,
model or extraction mode. Nothing is fetched: no request reaches the site. It
is followed like "gleaner crawl": a live progress line, each page's result as
one JSON line (to --output, or stdout), then a summary. Pages whose archive
expired are skipped (archive_missing). Without --schema or --schema-id the
job's own schema is used.

Examples:
  $ gleaner reextract 01JC9X... --schema product-v2.yaml -o products-v2.jsonl
  $ gleaner reextract 01JC9X... --only failed --model openai/gpt-4o
  $ gleaner reextract 01JC9X... --only ungrounded --model anthropic/claude-sonnet-4-5
  $ gleaner reextract 01JC9X... --schema-id product --extraction-mode auto --detach`;

export function registerReextract(program: Command, kit: CommandKit): void {
  const command = program
    .command('reextract')
    .summary("extract a finished job's archived pages again (no fetching)")
    .description('Starts a re-extraction (POST /api/v1/jobs/{id}/reextract) and follows its event stream until it ends.')
    .argument('<job>', 'the id of the finished job whose pages to extract again');
  kit.addSchemaOptions(command);
  command
    .addOption(
      new Option('--only <pages>', 'which pages: all, only those that failed, or only those with a value not found on the page').choices([
        'all',
        'failed',
        'ungrounded',
      ]),
    )
    .option('--concurrency <n>', "pages extracted at once (default: the job's)", intParser('--concurrency', 1))
    .addOption(kit.extractionModeOption())
    .option('--max-cost <usd>', 'cost cap in USD: no new page starts beyond it', numberParser('--max-cost', 0));
  kit.addModelOptions(command);
  kit.addFollowOptions(command);
  command.addHelpText('after', HELP_AFTER).action(kit.action((ctx, [jobId], opts: ReextractOptions) => reextract(ctx, jobId ?? '', opts)));
}

async function reextract(ctx: CliContext, sourceId: string, opts: ReextractOptions): Promise<ExitCode> {
  if (opts.schema && opts.schemaId) throw new CliUsageError('give --schema or --schema-id, not both');
  if (opts.siteId) throw new CliUsageError("--site-id does not apply: a re-extraction runs with its job's options");
  const client = ctx.client();
  const body = Object.fromEntries(
    Object.entries({
      schema: opts.schema !== undefined ? await readSchemaOption(opts.schema, ctx.io.stdin) : undefined,
      schema_id: opts.schemaId,
      only: opts.only,
      concurrency: opts.concurrency,
      extraction_mode: opts.extractionMode,
      max_cost_usd: opts.maxCost,
      llm_config: llmConfig(opts, ctx),
    }).filter(([, v]) => v !== undefined),
  );
  const sink = opts.output && !opts.detach ? ResultSink.toFile(opts.output) : undefined;
  let started: CrawlStarted & { source_job_id?: string; page_count?: number };
  try {
    started = (await client.json<typeof started>('POST', `/api/v1/jobs/${encodeURIComponent(sourceId)}/reextract`, { body })).body;
  } catch (error) {
    sink?.close();
    throw error;
  }
  const ended = afterStart(ctx, started, 'Re-extraction', opts.detach);
  if (ended !== null) return ended;
  ctx.info(
    `${ctx.err.cyan('Re-extraction')} ${started.job_id} of ${sourceId} started: ${started.page_count ?? '?'} archived pages, nothing fetched ${ctx.err.dim('(Ctrl-C to cancel or detach)')}`,
  );
  const job = startedJobView(started, 'reextract', null);
  return watchJob(ctx, client, job, { sink, maxPages: started.page_count, reconnectTimeoutSeconds: opts.reconnectTimeout });
}
