import type { ApiClient } from '../api/api-client';
import type { CrawlMap, JobView } from '../api/api-types';
import type { CliContext } from '../context';
import { InterruptedError } from '../errors';
import { EXIT, type ExitCode } from '../exit-codes';
import { formatCounts, formatDuration, formatInt, formatUsd } from '../util/format';
import { InterruptPrompt } from './interrupt-prompt';
import { JobFollower, skippedCount, type FollowOutcome } from './job-follower';
import { LiveProgress, NoProgress, PlainProgress, type ProgressDisplay } from './progress';
import { ResultSink } from './result-sink';
import { jobNoun, onCrawlEngine } from './job-kinds';

export interface WatchOptions {
  /** Result lines go to this file (opened before the job was started); without it to stdout, and the summary to stderr. */
  sink?: ResultSink;
  maxPages?: number;
  reconnectTimeoutSeconds?: number;
  /** Plain progress lines at most this often when stderr is not a terminal. */
  progressIntervalMs?: number;
}

/** The end of a followed job, as printed with --json. */
export interface JobSummary {
  job_id: string;
  type: string;
  status: string;
  pages: number;
  failed: number;
  skipped: number | null;
  skipped_by_reason: Record<string, number> | null;
  failures_by_category: Record<string, number> | null;
  rate_limited: boolean | null;
  /** Values of the results not found on their pages (docs/provenance.md); null for jobs that do not count them. */
  ungrounded_fields: number | null;
  /** Crawls and batches: pages skipped as duplicates, by reason, and the model calls they saved (docs/dedup.md); null for other jobs. */
  duplicates: Record<string, number> | null;
  model_calls_saved: number | null;
  token_usage: { input: number; output: number };
  cost_usd: number;
  duration_ms: number;
  error_category: string | null;
  error_message: string | null;
  output: string | null;
  results_written: number;
  /** `files`: one per page under the directory `output` (crawl --out-dir); `lines`: JSON lines. */
  results_unit: 'lines' | 'files';
  detached?: boolean;
  cancelled_by_user?: boolean;
}

/**
 * Follows a job to its end (or until the user detaches) and reports it: result lines, the progress
 * display on stderr, then a summary. The exit code says how it ended.
 */
export async function watchJob(ctx: CliContext, client: ApiClient, job: JobView, options: WatchOptions): Promise<ExitCode> {
  const { io } = ctx;
  const sink = options.sink ?? ResultSink.toStream(io.stdout);
  const toFile = sink.path !== null;
  const display = await chooseDisplay(ctx, options);
  const prompt = new InterruptPrompt(io.stdin, io.stderr, ctx.err);
  const follower = new JobFollower({
    client,
    job,
    maxPages: options.maxPages,
    sink,
    display,
    prompt,
    signals: ctx.signals,
    colors: ctx.err,
    reconnectTimeoutMs: (options.reconnectTimeoutSeconds ?? 300) * 1000,
    signal: ctx.signal,
    json: ctx.json,
  });
  let outcome: FollowOutcome;
  try {
    outcome = await follower.run();
  } finally {
    sink.close();
  }

  // Where the summary goes: stdout when the results went to a file, else stderr (stdout is results).
  const summaryStream = toFile ? io.stdout : io.stderr;
  const summaryColors = toFile ? ctx.out : ctx.err;

  if (outcome.kind === 'detached') {
    const summary = await buildSummary(client, job, follower, sink, true);
    if (ctx.json) summaryStream.write(`${JSON.stringify({ ...summary, detached: true })}\n`);
    else
      io.stderr.write(
        `${ctx.err.yellow('Detached.')} ${jobNoun(job.type)} goes on: ${ctx.err.bold(`gleaner jobs watch ${job.id}`)}` +
          `${sink.path ? ` (${formatInt(sink.written)} results written to ${sink.path})` : ''}\n`,
      );
    throw new InterruptedError('');
  }

  const summary = await buildSummary(client, job, follower, sink, false);
  summary.status = outcome.complete.status;
  summary.error_category = outcome.complete.error_category ?? summary.error_category;
  summary.error_message = outcome.complete.error_message ?? summary.error_message;
  if (outcome.cancelledByUser) summary.cancelled_by_user = true;
  if (ctx.json) summaryStream.write(`${JSON.stringify(summary)}\n`);
  else summaryStream.write(renderSummary(summary, summaryColors));
  if (outcome.cancelledByUser) return EXIT.interrupted;
  return summary.status === 'completed' ? EXIT.ok : EXIT.failed;
}

async function chooseDisplay(ctx: CliContext, options: WatchOptions): Promise<ProgressDisplay> {
  const { stderr } = ctx.io;
  if (ctx.quiet || ctx.json) return new NoProgress(stderr);
  if (stderr.isTTY && ctx.env.TERM !== 'dumb') return LiveProgress.create(stderr, ctx.err);
  return new PlainProgress(stderr, ctx.err, options.progressIntervalMs ?? 5000);
}

/**
 * Totals from the job itself and, for crawls, the crawl map; what the stream showed if those fail.
 * `quick` (detaching): no request at all, the user wants out now.
 */
async function buildSummary(client: ApiClient, job: JobView, follower: JobFollower, sink: ResultSink, quick: boolean): Promise<JobSummary> {
  const id = encodeURIComponent(job.id);
  let latest: JobView = { ...job, ...follower.snapshot() };
  let map: CrawlMap | null = follower.crawlMap;
  if (!quick) {
    try {
      latest = (await client.json<JobView>('GET', `/api/v1/jobs/${id}`, { timeoutMs: 15_000 })).body;
      if (onCrawlEngine(job.type))
        map = (await client.json<CrawlMap>('GET', `/api/v1/jobs/${id}/crawl-map`, { query: { limit: 1 }, timeoutMs: 15_000 })).body;
    } catch {
      // The service went away at the very end: report what the stream said.
    }
  }
  const started = latest.started_at ? Date.parse(latest.started_at) : NaN;
  const ended = latest.completed_at ? Date.parse(latest.completed_at) : Date.now();
  const skipped = map ? skippedCount(map) : null;
  return {
    job_id: job.id,
    type: job.type,
    status: latest.status,
    pages: latest.page_count,
    failed: latest.failed_count,
    skipped,
    skipped_by_reason: map?.skipped_by_reason ?? null,
    failures_by_category: map?.error_summary?.by_category ?? null,
    rate_limited: map ? map.error_summary?.has_rate_limit === true : null,
    ungrounded_fields: typeof latest.ungrounded_fields === 'number' ? latest.ungrounded_fields : null,
    duplicates: duplicateCounts(latest.duplicates),
    model_calls_saved: typeof latest.model_calls_saved === 'number' ? latest.model_calls_saved : null,
    token_usage: {
      input: Math.max(latest.token_usage_input ?? 0, follower.totals.tokensIn),
      output: Math.max(latest.token_usage_output ?? 0, follower.totals.tokensOut),
    },
    cost_usd: latest.cost_usd,
    duration_ms: Number.isFinite(started) ? Math.max(0, ended - started) : Date.now() - follower.totals.startedAt,
    error_category: latest.error_category,
    error_message: latest.error_message,
    output: sink.path,
    results_written: sink.written,
    results_unit: sink.unit,
  };
}

/** The job's `duplicates` (by reason), numbers only; null when the job has none (not a crawl or batch, or older). */
function duplicateCounts(raw: unknown): Record<string, number> | null {
  if (typeof raw !== 'object' || raw === null) return null;
  return Object.fromEntries(Object.entries(raw).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
}

export function renderSummary(s: JobSummary, c: CliContext['out']): string {
  const mark = s.status === 'completed' ? c.green('✔') : s.status === 'cancelled' ? c.yellow('■') : c.red('✖');
  const what = s.type === 'crawl' ? 'Crawl' : `${s.type[0]?.toUpperCase() ?? ''}${s.type.slice(1)}`;
  const lines = [`${mark} ${what} ${s.job_id} ${c.bold(s.status)} in ${formatDuration(s.duration_ms)}`];
  if (s.error_category || s.error_message)
    lines.push(`  ${c.red('error')}     ${[s.error_category, s.error_message].filter(Boolean).join(': ')}`);
  const skipped =
    s.skipped !== null
      ? ` · ${formatInt(s.skipped)} skipped${Object.keys(s.skipped_by_reason ?? {}).length ? ` (${formatCounts(s.skipped_by_reason ?? {})})` : ''}`
      : '';
  lines.push(`  pages     ${formatInt(s.pages)} done · ${formatInt(s.failed)} failed${skipped}`);
  if (s.failures_by_category !== null || s.failed > 0)
    lines.push(`  failures  ${formatCounts(s.failures_by_category ?? {}, s.failed > 0 ? `${s.failed}` : 'none')}`);
  if (s.rate_limited) lines.push(`  ${c.yellow('rate limits met: some pages answered 429 or Retry-After')}`);
  if (s.ungrounded_fields)
    lines.push(`  ${c.yellow(`${formatInt(s.ungrounded_fields)} values not on their page`)} (crawl map: ungrounded=true lists the pages)`);
  const duplicates = Object.values(s.duplicates ?? {}).reduce((sum, n) => sum + n, 0);
  if (duplicates > 0)
    lines.push(
      `  duplicates ${formatInt(duplicates)} (${formatCounts(s.duplicates ?? {})}) · ${formatInt(s.model_calls_saved ?? 0)} model calls saved`,
    );
  lines.push(`  tokens    ${formatInt(s.token_usage.input)} in · ${formatInt(s.token_usage.output)} out`);
  lines.push(`  cost      ${formatUsd(s.cost_usd)}`);
  if (s.output) lines.push(`  results   ${formatInt(s.results_written)} ${s.results_unit} in ${s.output}`);
  return `${lines.join('\n')}\n`;
}
