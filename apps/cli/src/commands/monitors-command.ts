import type { Command } from 'commander';
import type { CliContext } from '../context';
import { CliUsageError } from '../errors';
import { EXIT, type ExitCode } from '../exit-codes';
import type { CommandKit } from '../program';
import { collect, intParser, llmConfig, type ModelOptions } from '../request-options';
import { readSchemaOption } from '../schema-input';
import { parseList, readList } from '../url-list';
import { formatInt, formatUsd, renderTable } from '../util/format';

type Json = Record<string, any>;

const HELP_AFTER = `
Monitors re-crawl on a schedule and report what changed, field by field (docs/monitors.md).

Examples:
  $ gleaner monitors create https://shop.example/ --name prices --schema product.yaml \\
      --every 6h --key-field products.sku --webhook-url https://hooks.example/prices
  $ gleaner monitors create https://shop.example/catalog --name catalog --schema catalog.yaml \\
      --every 1d --key-field products.sku --paginate 'li.next > a' --paginate-max-pages 10
  $ gleaner monitors create --urls pages.txt --name pages --schema product.yaml --every 1d
  $ gleaner monitors update 01JD0000000000000000000000 --no-paginate
  $ gleaner monitors list
  $ gleaner monitors run 01JD0000000000000000000000
  $ gleaner monitors changes 01JD0000000000000000000000 --kind changed --json
  $ gleaner monitors watch 01JD0000000000000000000000 > changes.jsonl`;

interface CreateOptions extends ModelOptions {
  name: string;
  urls?: string;
  schema?: string;
  schemaId?: string;
  siteId?: string;
  every?: string;
  cron?: string;
  timezone?: string;
  keyField?: string[];
  maxPages?: number;
  maxDepth?: number;
  fetchMode?: string;
  extractionMode?: string;
  useSitemap?: boolean;
  webhookId?: string;
  webhookUrl?: string;
  on?: string[];
  baseline?: boolean;
  paused?: boolean;
  paginate?: string;
  paginateMaxPages?: number;
}

interface UpdateOptions {
  name?: string;
  every?: string;
  cron?: string;
  timezone?: string;
  keyField?: string[];
  /** The selector; false from `--no-paginate`. */
  paginate?: string | false;
  paginateMaxPages?: number;
}

const PAGINATE_HELP =
  'read each page\'s list over its "next" pages: the CSS selector of the next link (docs/monitors.md "Paginated lists")';
const PAGINATE_MAX_PAGES_HELP = 'with --paginate: pages read at most, the first included (service default 5, at most 20)';

/**
 * `paginate` from `--paginate` and `--paginate-max-pages`, the body field of POST and PUT /monitors (as on
 * POST /crawl and /batch/extract): undefined when neither is given, null for `--no-paginate`.
 */
export function paginateOption(opts: { paginate?: string | false; paginateMaxPages?: number }): Json | null | undefined {
  if (opts.paginate === false) {
    if (opts.paginateMaxPages !== undefined) throw new CliUsageError('give --paginate-max-pages or --no-paginate, not both');
    return null;
  }
  if (opts.paginate === undefined) {
    if (opts.paginateMaxPages !== undefined) throw new CliUsageError('--paginate-max-pages goes with --paginate SELECTOR');
    return undefined;
  }
  return defined({ selector: opts.paginate, max_pages: opts.paginateMaxPages });
}

/** PUT /monitors/{id}'s body from `update`'s options: only what is given changes. */
export function updateMonitorBody(opts: UpdateOptions): Json {
  if (opts.every && opts.cron) throw new CliUsageError('give --every or --cron, not both');
  if (opts.timezone && !opts.cron) throw new CliUsageError('--timezone goes with --cron');
  const body = defined({
    name: opts.name,
    schedule: opts.every ? { every: opts.every } : opts.cron ? defined({ cron: opts.cron, timezone: opts.timezone }) : undefined,
    key: opts.keyField,
    paginate: paginateOption(opts),
  });
  if (Object.keys(body).length === 0)
    throw new CliUsageError('nothing to update: give --name, --every, --cron, --key-field, --paginate or --no-paginate');
  return body;
}

/** `gleaner monitors ...`: the monitor resource over the public API (POST/GET/PUT/DELETE /api/v1/monitors). */
export function registerMonitors(program: Command, kit: CommandKit): void {
  const monitors = program
    .command('monitors')
    .summary('scheduled re-crawls that report changes')
    .description('Create, inspect, run, pause and watch monitors.')
    .addHelpText('after', HELP_AFTER);

  const create = monitors
    .command('create')
    .description('create a monitor (POST /api/v1/monitors); its first run starts at once unless --paused')
    .argument('[url]', 'the seed URL (optional with --site-id or --urls)')
    .requiredOption('--name <name>', 'a name for the monitor')
    .option('--urls <file>', 'watch a list of pages instead of crawling a seed: a file (or - for stdin), one URL per line, # comments');
  kit.addSchemaOptions(create);
  kit.addModelOptions(create);
  create
    .option('--every <interval>', 'an interval: 30m, 6h, 1d')
    .option('--cron <expression>', 'a cron expression instead of --every, e.g. "0 */6 * * *"')
    .option('--timezone <zone>', 'the time zone of --cron (default UTC)')
    // Not --key: the program's --key (the API key) would take it wherever it stands.
    .option(
      '--key-field <path>',
      "a field path that identifies a record or a list item, e.g. products.sku (repeatable; the body's key)",
      collect,
    )
    .option('--max-pages <n>', 'pages per run at most', intParser('--max-pages', 1))
    .option('--max-depth <n>', 'link depth from the seed', intParser('--max-depth', 0))
    .addOption(kit.fetchModeOption())
    .addOption(kit.extractionModeOption())
    .option('--use-sitemap', "also start from the site's sitemap.xml")
    .option('--paginate <css>', PAGINATE_HELP)
    .option('--paginate-max-pages <n>', PAGINATE_MAX_PAGES_HELP, intParser('--paginate-max-pages', 1))
    .option('--webhook-id <id>', 'a saved webhook for monitor.changed and monitor.failed')
    .option('--webhook-url <url>', 'a simple webhook address for monitor.changed and monitor.failed')
    .option('--on <kind>', 'changed, added, removed or failed: what the webhook hears of (repeatable; default all)', collect)
    .option('--baseline', 'the first run records silently instead of reporting everything as added')
    .option('--paused', 'create it paused')
    .action(
      kit.action(async (ctx, [url], opts: CreateOptions) => {
        if (!opts.every === !opts.cron) throw new CliUsageError('give one of --every and --cron');
        if (url && opts.urls) throw new CliUsageError('give a seed URL or --urls, not both');
        if (opts.urls === '-' && opts.schema === '-') throw new CliUsageError('stdin cannot hold both the URL list and the schema');
        const urls = opts.urls !== undefined ? parseList(await readList(ctx, opts.urls)) : undefined;
        if (urls?.length === 0) throw new CliUsageError(`${opts.urls === '-' ? 'stdin' : opts.urls} lists no URL`);
        const options = defined({
          max_pages: opts.maxPages,
          max_depth: opts.maxDepth,
          fetch_mode: opts.fetchMode,
          use_sitemap: opts.useSitemap,
        });
        const notify =
          opts.webhookId || opts.webhookUrl
            ? defined({ webhook_id: opts.webhookId, webhook_url: opts.webhookUrl, on: opts.on })
            : undefined;
        const body = defined({
          name: opts.name,
          url,
          urls,
          schema: opts.schema !== undefined ? await readSchemaOption(opts.schema, ctx.io.stdin) : undefined,
          schema_id: opts.schemaId,
          site_id: opts.siteId,
          llm_config: llmConfig(opts, ctx),
          extraction_mode: opts.extractionMode,
          paginate: paginateOption(opts),
          options: Object.keys(options).length ? options : undefined,
          schedule: opts.every ? { every: opts.every } : defined({ cron: opts.cron, timezone: opts.timezone }),
          key: opts.keyField,
          notify,
          first_run: opts.baseline ? 'baseline' : undefined,
          paused: opts.paused ? true : undefined,
        });
        const { body: monitor } = await ctx.client().json<Json>('POST', '/api/v1/monitors', { body, signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify(monitor, null, 2)}\n` : describe(monitor));
        return EXIT.ok;
      }),
    );

  monitors
    .command('list')
    .description('list your monitors, newest first (GET /api/v1/monitors)')
    .option('--limit <n>', 'how many (1-100)', intParser('--limit', 1), 20)
    .option('--offset <n>', 'skip this many', intParser('--offset', 0), 0)
    .action(
      kit.action(async (ctx, _args, opts: { limit: number; offset: number }) => {
        const { body } = await ctx
          .client()
          .json<Json>('GET', '/api/v1/monitors', { query: { limit: opts.limit, offset: opts.offset }, signal: ctx.signal });
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        else if (body.monitors.length === 0) ctx.io.stdout.write('No monitors.\n');
        else
          ctx.io.stdout.write(
            renderTable(
              body.monitors as Json[],
              [
                { header: 'ID', value: (m) => String(m.id) },
                { header: 'NAME', value: (m) => String(m.name), shrink: true },
                { header: 'SCHEDULE', value: (m) => scheduleText(m.schedule) },
                { header: 'STATE', value: (m) => (m.paused ? 'paused' : 'active') },
                { header: 'LAST RUN', value: (m) => (m.last_run ? String(m.last_run.status) : '-') },
                { header: 'NEXT RUN', value: (m) => String(m.next_run_at ?? '-') },
                { header: 'RECORDS', value: (m) => formatInt(Number(m.records)), align: 'right' },
              ],
              { maxWidth: ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined, header: ctx.out.dim },
            ),
          );
        return EXIT.ok;
      }),
    );

  monitors
    .command('update')
    .description('change a monitor: only the options given (PUT /api/v1/monitors/{id})')
    .argument('<monitor>', 'the monitor id')
    .option('--name <name>', 'a new name')
    .option('--every <interval>', 'a new interval: 30m, 6h, 1d')
    .option('--cron <expression>', 'a new cron expression instead of an interval')
    .option('--timezone <zone>', 'the time zone of --cron (default UTC)')
    .option('--key-field <path>', 'the field paths that identify a record or a list item, replacing the stored ones (repeatable)', collect)
    .option('--paginate <css>', `${PAGINATE_HELP}; replaces the stored one`)
    .option('--paginate-max-pages <n>', PAGINATE_MAX_PAGES_HELP, intParser('--paginate-max-pages', 1))
    .option('--no-paginate', 'stop reading next pages (sends "paginate": null)')
    .action(
      kit.action(async (ctx, [id], opts: UpdateOptions) => {
        const body = updateMonitorBody(opts);
        const { body: monitor } = await ctx
          .client()
          .json<Json>('PUT', `/api/v1/monitors/${encodeURIComponent(id!)}`, { body, signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify(monitor, null, 2)}\n` : describe(monitor));
        return EXIT.ok;
      }),
    );

  const simple: Array<[string, string, string, string]> = [
    ['get', 'GET', '', 'show one monitor: schedule, next run, last run, counts (GET /api/v1/monitors/{id})'],
    ['pause', 'POST', '/pause', 'pause a monitor (POST /api/v1/monitors/{id}/pause)'],
    ['resume', 'POST', '/resume', 'resume a monitor (POST /api/v1/monitors/{id}/resume)'],
  ];
  for (const [name, method, suffix, description] of simple) {
    monitors
      .command(name)
      .description(description)
      .argument('<monitor>', 'the monitor id')
      .action(
        kit.action(async (ctx, [id]) => {
          const { body } = await ctx
            .client()
            .json<Json>(method, `/api/v1/monitors/${encodeURIComponent(id!)}${suffix}`, { signal: ctx.signal });
          ctx.io.stdout.write(ctx.json ? `${JSON.stringify(body, null, 2)}\n` : describe(body));
          return EXIT.ok;
        }),
      );
  }

  monitors
    .command('delete')
    .description('delete a monitor and its history (DELETE /api/v1/monitors/{id})')
    .argument('<monitor>', 'the monitor id')
    .action(
      kit.action(async (ctx, [id]) => {
        await ctx.client().json<unknown>('DELETE', `/api/v1/monitors/${encodeURIComponent(id!)}`, { signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify({ deleted: id })}\n` : `Monitor ${id} deleted.\n`);
        return EXIT.ok;
      }),
    );

  monitors
    .command('run')
    .description("run a monitor now (POST /api/v1/monitors/{id}/run); prints the run's job (a crawl, or a batch for a list)")
    .argument('<monitor>', 'the monitor id')
    .action(
      kit.action(async (ctx, [id]) => {
        const { body } = await ctx.client().json<Json>('POST', `/api/v1/monitors/${encodeURIComponent(id!)}/run`, { signal: ctx.signal });
        ctx.io.stdout.write(
          ctx.json ? `${JSON.stringify(body, null, 2)}\n` : `Run ${body.run.id} started: ${body.job_type ?? 'crawl'} job ${body.job_id}\n`,
        );
        return EXIT.ok;
      }),
    );

  monitors
    .command('runs')
    .description("a monitor's runs, newest first, with their counts (GET /api/v1/monitors/{id}/runs)")
    .argument('<monitor>', 'the monitor id')
    .option('--limit <n>', 'how many (1-100)', intParser('--limit', 1), 20)
    .option('--offset <n>', 'skip this many', intParser('--offset', 0), 0)
    .action(
      kit.action(async (ctx, [id], opts: { limit: number; offset: number }) => {
        const { body } = await ctx.client().json<Json>('GET', `/api/v1/monitors/${encodeURIComponent(id!)}/runs`, {
          query: { limit: opts.limit, offset: opts.offset },
          signal: ctx.signal,
        });
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        else if (body.runs.length === 0) ctx.io.stdout.write('No runs.\n');
        else
          ctx.io.stdout.write(
            renderTable(
              body.runs as Json[],
              [
                { header: 'DUE', value: (r) => String(r.due_at) },
                { header: 'STATUS', value: (r) => String(r.status) },
                { header: 'CHANGED', value: (r) => formatInt(r.counts.changed), align: 'right' },
                { header: 'ADDED', value: (r) => formatInt(r.counts.added), align: 'right' },
                { header: 'REMOVED', value: (r) => formatInt(r.counts.removed), align: 'right' },
                { header: 'FAILED', value: (r) => formatInt(r.counts.failed), align: 'right' },
                { header: '304', value: (r) => formatInt(r.counts.not_modified), align: 'right' },
                { header: 'MODEL', value: (r) => formatInt(r.counts.model_calls), align: 'right' },
                { header: 'COST', value: (r) => formatUsd(r.counts.cost_usd), align: 'right' },
                { header: 'JOB', value: (r) => String(r.job_id ?? '-') },
              ],
              { maxWidth: ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined, header: ctx.out.dim },
            ),
          );
        return EXIT.ok;
      }),
    );

  monitors
    .command('changes')
    .description("a monitor's changes as JSON lines, oldest first (GET /api/v1/monitors/{id}/changes)")
    .argument('<monitor>', 'the monitor id')
    .option('--since <time>', 'only changes detected after this RFC 3339 instant')
    .addOption(kit.choiceOption('--kind <kind>', 'only this kind', ['any', 'added', 'changed', 'removed'], 'any'))
    .option('--limit <n>', 'how many (1-100)', intParser('--limit', 1), 100)
    .option('--offset <n>', 'skip this many', intParser('--offset', 0), 0)
    .action(
      kit.action(async (ctx, [id], opts: { since?: string; kind: string; limit: number; offset: number }) => {
        const page = await changes(ctx, id!, {
          since: opts.since,
          kind: opts.kind === 'any' ? undefined : opts.kind,
          limit: opts.limit,
          offset: opts.offset,
        });
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
        else for (const change of page.changes) ctx.io.stdout.write(`${JSON.stringify(change)}\n`);
        return EXIT.ok;
      }),
    );

  monitors
    .command('watch')
    .description('stream changes as they are found, one JSON line each (polls GET /api/v1/monitors/{id}/changes)')
    .argument('<monitor>', 'the monitor id')
    .option('--since <time>', 'start after this RFC 3339 instant (default: now: only new changes)')
    .option('--interval <seconds>', 'how often to ask', intParser('--interval', 1), 5)
    .addHelpText(
      'after',
      '\nRuns until Ctrl-C. Each change is printed once, in the order found.\n\nExample:\n  $ gleaner monitors watch 01JD0000000000000000000000 | jq .fields',
    )
    .action(
      kit.action(async (ctx, [id], opts: { since?: string; interval: number }): Promise<ExitCode> => {
        let since = opts.since ?? new Date().toISOString();
        const seen = new Set<string>();
        while (!ctx.signal.aborted) {
          const page = await changes(ctx, id!, { since, limit: 100, offset: 0 });
          for (const change of page.changes as Json[]) {
            if (seen.has(change.id)) continue;
            seen.add(change.id);
            ctx.io.stdout.write(`${JSON.stringify(change)}\n`);
          }
          const last = page.changes[page.changes.length - 1] as Json | undefined;
          // More than a page: ask again at once from the last one seen.
          if (last && page.changes.length === 100) {
            since = String(last.detected_at);
            continue;
          }
          if (last) since = String(last.detected_at);
          await pause(opts.interval * 1000, ctx.signal);
        }
        return EXIT.ok;
      }),
    );
}

async function changes(ctx: CliContext, id: string, query: Record<string, string | number | undefined>): Promise<Json> {
  const { body } = await ctx
    .client()
    .json<Json>('GET', `/api/v1/monitors/${encodeURIComponent(id)}/changes`, { query, signal: ctx.signal });
  return body;
}

/** A pause that keeps the process alive (unlike a library's unref'd timer) and ends early on Ctrl-C. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function scheduleText(schedule: Json): string {
  return schedule.every ? `every ${schedule.every}` : `${schedule.cron} (${schedule.timezone})`;
}

function describe(m: Json): string {
  const rows: Array<[string, string]> = [
    ['id', String(m.id)],
    ['name', String(m.name)],
    m.url_count ? ['pages', `${formatInt(m.url_count)} listed`] : ['url', String(m.url ?? m.site_id ?? '-')],
    ['schedule', scheduleText(m.schedule)],
    ['state', m.paused ? 'paused' : 'active'],
    ['next run', String(m.next_run_at ?? '-')],
    ['last run', m.last_run ? `${m.last_run.status} (${m.last_run.due_at})` : '-'],
    ['runs', `${formatInt(m.runs_total)} · ${formatInt(m.consecutive_failures)} failed in a row`],
    ['records', formatInt(m.records)],
    ['key', m.key.length ? m.key.join(', ') : 'the page URL'],
    ...(m.paginate ? [['paginate', `${m.paginate.selector} (${m.paginate.max_pages} pages at most)`] as [string, string]] : []),
  ];
  return rows.map(([k, v]) => `${k.padEnd(10)} ${v}`).join('\n') + '\n';
}

function defined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined));
}
