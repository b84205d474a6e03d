import type { Command } from 'commander';
import type { JobList, JobView } from '../api/api-types';
import { EXIT, type ExitCode } from '../exit-codes';
import { ResultSink } from '../follow/result-sink';
import { watchJob } from '../follow/watch';
import type { CommandKit } from '../program';
import { intParser } from '../request-options';
import type { Colors } from '../util/colors';
import { formatDuration, formatInt, formatUsd, renderTable } from '../util/format';

const HELP_AFTER = `
Examples:
  $ gleaner jobs list --limit 5
  $ gleaner jobs get 01JD0000000000000000000000 --json | jq .status
  $ gleaner jobs watch 01JD0000000000000000000000 -o results.jsonl
  $ gleaner jobs cancel 01JD0000000000000000000000`;

export function registerJobs(program: Command, kit: CommandKit): void {
  const jobs = program
    .command('jobs')
    .summary('list, inspect, cancel and watch jobs')
    .description('Your jobs (extractions, crawls, analyses).')
    .addHelpText('after', HELP_AFTER);

  jobs
    .command('list')
    .description('list your jobs, newest first (GET /api/v1/jobs)')
    .option('--limit <n>', 'how many (1-100)', intParser('--limit', 1), 20)
    .option('--offset <n>', 'skip this many', intParser('--offset', 0), 0)
    .option('--status <status>', 'only jobs in this status (pending, running, completed, failed, cancelled)')
    .option('--type <type>', 'only jobs of this type (extract, crawl, batch, scrape, analyze, ...)')
    .option('--site-id <id>', 'only jobs that named this saved site')
    .option('--since <time>', 'only jobs created at or after this instant (RFC 3339)')
    .option('--error-category <category>', 'only jobs that failed with this error_category (ssrf_blocked: refused by the address guard)')
    .addHelpText('after', "\nExample:\n  $ gleaner jobs list --status failed --limit 50 --json | jq -r '.jobs[].id'")
    .action(
      kit.action(async (ctx, _args, opts: JobListOptions) => {
        const query = {
          limit: opts.limit,
          offset: opts.offset,
          status: opts.status,
          type: opts.type,
          site_id: opts.siteId,
          since: opts.since,
          error_category: opts.errorCategory,
        };
        const { body } = await ctx.client().json<JobList>('GET', '/api/v1/jobs', { query, signal: ctx.signal });
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        else if (body.jobs.length === 0) ctx.io.stdout.write('No jobs.\n');
        else ctx.io.stdout.write(jobsTable(body.jobs, ctx.out, ctx.io.stdout.isTTY ? ctx.io.stdout.columns : undefined));
        return EXIT.ok;
      }),
    );

  jobs
    .command('get')
    .description('show one job (GET /api/v1/jobs/{id})')
    .argument('<job>', 'the job id')
    .addHelpText('after', '\nExample:\n  $ gleaner jobs get 01JD0000000000000000000000')
    .action(
      kit.action(async (ctx, [id]) => {
        const { body } = await ctx.client().json<JobView>('GET', `/api/v1/jobs/${encodeURIComponent(id!)}`, { signal: ctx.signal });
        ctx.io.stdout.write(ctx.json ? `${JSON.stringify(body, null, 2)}\n` : describeJob(body, ctx.out));
        return EXIT.ok;
      }),
    );

  jobs
    .command('cancel')
    .description('cancel a pending or running job (POST /api/v1/jobs/{id}/cancel); exit 1 if it already ended')
    .argument('<job>', 'the job id')
    .addHelpText('after', '\nExample:\n  $ gleaner jobs cancel 01JD0000000000000000000000')
    .action(
      kit.action(async (ctx, [id]) => {
        const { body } = await ctx.client().json<JobView>('POST', `/api/v1/jobs/${encodeURIComponent(id!)}/cancel`, { signal: ctx.signal });
        if (ctx.json) ctx.io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
        else ctx.io.stdout.write(`${ctx.out.yellow('■')} Job ${body.id} ${ctx.out.bold(body.status)}\n`);
        return EXIT.ok;
      }),
    );

  const watch = jobs
    .command('watch')
    .description('follow a job to its end: progress, result lines, summary (GET /api/v1/jobs/{id}/stream)')
    .argument('<job>', 'the job id');
  kit.addFollowOptions(watch, { detach: false });
  watch
    .addHelpText(
      'after',
      '\nReplays the job from its first event, so the output file gets every result even for a job that already ended.\n\nExample:\n  $ gleaner jobs watch 01JD0000000000000000000000 -o results.jsonl',
    )
    .action(
      kit.action(async (ctx, [id], opts: { output?: string; reconnectTimeout: number }): Promise<ExitCode> => {
        const client = ctx.client();
        const { body: job } = await client.json<JobView>('GET', `/api/v1/jobs/${encodeURIComponent(id!)}`, { signal: ctx.signal });
        const sink = opts.output ? ResultSink.toFile(opts.output) : undefined;
        return watchJob(ctx, client, job, { sink, reconnectTimeoutSeconds: opts.reconnectTimeout });
      }),
    );
}

export function statusColor(status: string, c: Colors): (s: string) => string {
  if (status === 'completed') return c.green;
  if (status === 'failed') return c.red;
  if (status === 'cancelled') return c.yellow;
  if (status === 'running') return c.cyan;
  return (s) => s;
}

function jobsTable(jobs: JobView[], c: Colors, width: number | undefined): string {
  return renderTable(
    jobs,
    [
      { header: 'ID', value: (j) => j.id },
      { header: 'TYPE', value: (j) => j.type },
      { header: 'STATUS', value: (j) => j.status, style: (t, j) => statusColor(j.status, c)(t) },
      { header: 'PAGES', value: (j) => formatInt(j.page_count), align: 'right' },
      { header: 'FAILED', value: (j) => formatInt(j.failed_count), align: 'right' },
      { header: 'COST', value: (j) => formatUsd(j.cost_usd), align: 'right' },
      { header: 'CREATED', value: (j) => j.created_at.replace('T', ' ').replace(/\.\d+Z$/, 'Z') },
      { header: 'URL', value: (j) => j.url ?? '', shrink: true },
    ],
    { maxWidth: width, header: c.dim },
  );
}

function describeJob(job: JobView, c: Colors): string {
  const started = job.started_at ? Date.parse(job.started_at) : NaN;
  const ended = job.completed_at ? Date.parse(job.completed_at) : Date.now();
  const rows: Array<[string, string]> = [
    ['id', job.id],
    ['type', job.type],
    ['status', statusColor(job.status, c)(job.status)],
    ['url', job.url ?? '-'],
    ['created', job.created_at],
    ['started', job.started_at ?? '-'],
    ['completed', job.completed_at ?? '-'],
    ['duration', Number.isFinite(started) ? formatDuration(ended - started) : '-'],
    // urls_queued is what the job fetches, not every URL it found (skipped ones are in `gleaner crawl-map`).
    [
      'pages',
      `${formatInt(job.page_count)} done · ${formatInt(job.failed_count)} failed · ${formatInt(job.urls_queued)} to fetch or fetched`,
    ],
    ['tokens', `${formatInt(job.token_usage_input)} in · ${formatInt(job.token_usage_output)} out`],
    ['cost', formatUsd(job.cost_usd)],
  ];
  if (job.error_category || job.error_message)
    rows.push(['error', c.red([job.error_category, job.error_message].filter(Boolean).join(': '))]);
  return rows.map(([k, v]) => `${c.dim(k.padEnd(10))} ${v}`).join('\n') + '\n';
}

interface JobListOptions {
  limit: number;
  offset: number;
  status?: string;
  type?: string;
  siteId?: string;
  since?: string;
  errorCategory?: string;
}
