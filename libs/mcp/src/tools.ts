import { BatchRequestDto, CrawlRequestDto, MapRequestDto } from '@app/crawl';
import { AnalyzeRequestDto, ExtractRequestDto } from '@app/extraction';
import type { DtoClass } from '@app/http';
import { CreateMonitorDto } from '@app/monitors';
import { ScrapeRequestDto } from '@app/scrape';
import { followJob, jobProgress, type JobRecord } from './job-follow';
import { withHeartbeat, type ProgressSink } from './progress';
import type { RestAnswer, RestPort, RestRequest } from './rest-port';
import {
  FOLLOW_DEFAULT_SECONDS,
  FollowArgs,
  JobArgs,
  JobResultsArgs,
  JobStatusArgs,
  MonitorArgs,
  MonitorChangesArgs,
  NoArgs,
  RESULTS_PAGE_DEFAULT,
} from './tool-args.dto';
import { done, refusalOf, type ToolOutcome } from './tool-outcome';

/** What one call has: the REST routes as the caller, its arguments (split), progress and cancellation. */
export interface ToolCall<A = Record<string, unknown>> {
  rest: RestPort;
  /** The arguments that go into the REST body (everything the tool's own DTO does not declare). */
  body: Record<string, unknown>;
  /** The tool's own arguments, validated. */
  args: A;
  progress: ProgressSink;
  signal: AbortSignal;
  /** Between two reads of a followed job. */
  pollMs: number;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  /** What the key needs (the REST route's requirement): a scope, or a full-access key. */
  scope: 'extract' | 'crawl' | 'jobs' | 'full access';
  /** The REST route the tool calls (docs/mcp.md). */
  route: string;
  /** The REST body the arguments go to, when the route takes one. */
  body?: DtoClass;
  /** The tool's own arguments. */
  args: DtoClass;
  annotations: { readOnlyHint: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint: boolean };
  run(call: ToolCall): Promise<ToolOutcome>;
}

const obj = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

const usd = (value: unknown) => (typeof value === 'number' ? `$${value.toFixed(4)}` : '$0');

/** A call answered with `expect`: its body, else the refusal. */
async function answerOf(
  call: ToolCall,
  request: RestRequest,
  expect: number[],
  summary: (body: Record<string, unknown>) => string,
  heartbeat?: string,
): Promise<ToolOutcome> {
  const pending = call.rest.call(request, call.signal);
  const answer = heartbeat ? await withHeartbeat(call.progress, pending, heartbeat) : await pending;
  if (!expect.includes(answer.status)) return refusalOf(answer);
  const body = Array.isArray(answer.body) ? { items: answer.body } : obj(answer.body);
  return done(body, summary(body));
}

function jobLine(job: JobRecord): string {
  const { done: pages, total } = jobProgress(job);
  const failed = job.failed_count ? `, ${job.failed_count} failed` : '';
  const of = total === undefined ? '' : ` of ${total}`;
  return `Job ${job.id} (${job.type ?? 'job'}): ${job.status}, ${pages}${of} pages${failed}, ${usd(job.cost_usd)}.`;
}

/** Starts a job (202), then with `wait` follows it and answers with its final record. */
async function startJob(call: ToolCall<FollowArgs>, request: RestRequest, summary: (body: Record<string, unknown>) => string) {
  const started = await call.rest.call(request, call.signal);
  if (started.status !== 202 && started.status !== 200) return refusalOf(started);
  const body = obj(started.body);
  if (!call.args.wait) return done(body, summary(body));
  const final = await followJob(call.rest, String(body.job_id), call.progress, {
    timeoutMs: (call.args.timeout ?? FOLLOW_DEFAULT_SECONDS) * 1000,
    pollMs: call.pollMs,
    signal: call.signal,
  });
  return jobAnswer(final);
}

function jobAnswer(answer: RestAnswer): ToolOutcome {
  if (answer.status !== 200) return refusalOf(answer);
  const job = answer.body as JobRecord;
  return done(job, jobLine(job));
}

/** Values the model gave that are not on the page (docs/provenance.md): worth a look before an agent uses them. */
function notOnPage(count: unknown): string {
  return typeof count === 'number' && count > 0 ? ` ${count} ${count === 1 ? 'value is' : 'values are'} not on the page.` : '';
}

const jobPath = (id: string, rest = '') => `/api/v1/jobs/${encodeURIComponent(id)}${rest}`;
const monitorPath = (id: string, rest = '') => `/api/v1/monitors/${encodeURIComponent(id)}${rest}`;

/** One page of a job's results, read from its JSON lines as far as the page reaches. */
async function resultsPage(call: ToolCall<JobResultsArgs>): Promise<ToolOutcome> {
  const offset = call.args.offset ?? 0;
  const limit = call.args.limit ?? RESULTS_PAGE_DEFAULT;
  const opened = await call.rest.lines(
    { method: 'GET', path: jobPath(call.args.job_id, '/results'), query: { format: 'jsonl' } },
    call.signal,
  );
  if (!opened.ok) return refusalOf(opened.answer);
  const items: unknown[] = [];
  let seen = 0;
  let more = false;
  try {
    for await (const line of opened.lines) {
      if (seen++ < offset) continue;
      if (items.length === limit) {
        more = true;
        break;
      }
      items.push(JSON.parse(line) as unknown);
    }
  } finally {
    opened.close();
  }
  const next = more ? offset + items.length : null;
  const summary =
    items.length === 0
      ? `No results of job ${call.args.job_id} from ${offset} on.`
      : `Results ${offset + 1}-${offset + items.length} of job ${call.args.job_id}${next === null ? ' (the last so far).' : `; more from offset ${next}.`}`;
  return done({ job_id: call.args.job_id, offset, limit, items, next_offset: next }, summary);
}

function names(list: unknown, key: string): string {
  const items = Array.isArray(list) ? (list as Array<Record<string, unknown>>) : [];
  const shown = items.slice(0, 10).map((item) => `${String(item.name ?? item.id)} (${String(item.id)})`);
  return `${items.length} ${key}${items.length ? `: ${shown.join(', ')}${items.length > 10 ? ', ...' : ''}` : ''}.`;
}

export const TOOLS: readonly ToolDefinition[] = [
  {
    name: 'extract',
    title: 'Extract typed JSON from one page',
    description:
      'Fetches one page and fills a schema from it (POST /api/v1/extract): `url` and `schema` (shorthand such as {"title": "string", "price": "number"}, a field list or JSON Schema), or saved `schema_id` / `site_id`. Answers with `data` (shaped by the schema), `metadata` and `usage`; `metadata.fields` says per value whether it is on the page and `ungrounded_fields` how many are not (`provenance`, `grounding`; docs/provenance.md).',
    scope: 'extract',
    route: 'POST /api/v1/extract',
    body: ExtractRequestDto,
    args: NoArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: '/api/v1/extract', body: call.body },
        [200],
        (b) =>
          `Extracted ${String(b.url)} (job ${String(b.job_id)}, ${String(obj(b.metadata).method)}, ${usd(obj(b.usage).cost_usd)}).${notOnPage(obj(b.metadata).ungrounded_fields)}`,
        'extracting',
      ),
  },
  {
    name: 'analyze',
    title: 'Analyze a page',
    description:
      'Looks at a page (POST /api/v1/analyze): its type, repeated elements, links worth following, the fetch mode it needs, a suggested schema and sample data. A good first step before extract or crawl_start on an unknown site.',
    scope: 'extract',
    route: 'POST /api/v1/analyze',
    body: AnalyzeRequestDto,
    args: NoArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: '/api/v1/analyze', body: call.body },
        [200],
        (b) => `Analyzed ${String(b.url ?? call.body.url ?? '')}: ${String(b.page_type ?? 'page')} (job ${String(b.job_id)}).`,
        'analyzing',
      ),
  },
  {
    name: 'scrape',
    title: 'Scrape a page as markdown, text, HTML, links or a screenshot',
    description:
      'Fetches one page and converts it (POST /api/v1/scrape): `formats` picks markdown (default), text, html, raw_html, links, page_info, screenshot, and json (the `schema` extracted by the model beside them, with `prompt`; the only format that calls a model and costs); PDFs become markdown and text too.',
    scope: 'extract',
    route: 'POST /api/v1/scrape',
    body: ScrapeRequestDto,
    args: NoArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: '/api/v1/scrape', body: call.body },
        [200],
        (b) => `Scraped ${String(b.url)} (job ${String(b.job_id)}): ${Object.keys(obj(b.data)).join(', ') || 'nothing'}.`,
        'scraping',
      ),
  },
  {
    name: 'crawl_start',
    title: 'Start a crawl',
    description:
      'Starts a crawl from a seed URL that follows links and extracts every page with the schema (POST /api/v1/crawl): `options` bound it (max_pages, max_depth, include/exclude patterns, concurrency). Answers with the job at once; with `wait` it follows the crawl (progress notifications) and answers with its final status. Then job_results pages through the data.',
    scope: 'crawl',
    route: 'POST /api/v1/crawl',
    body: CrawlRequestDto,
    args: FollowArgs,
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    run: (call) =>
      startJob(
        call,
        { method: 'POST', path: '/api/v1/crawl', body: call.body },
        (b) => `Crawl job ${String(b.job_id)}: ${String(b.status)}.`,
      ),
  },
  {
    name: 'batch_extract',
    title: 'Extract every URL of a list',
    description:
      "Starts a batch job that extracts each URL of `urls` once (up to 10,000; duplicates removed and reported) with the crawl's politeness, retries and cost cap, following no links (POST /api/v1/batch/extract). Answers with the job at once; with `wait` it follows the batch (progress notifications) and answers with its final status. Then job_results.",
    scope: 'crawl',
    route: 'POST /api/v1/batch/extract',
    body: BatchRequestDto,
    args: FollowArgs,
    annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
    run: (call) =>
      startJob(
        call,
        { method: 'POST', path: '/api/v1/batch/extract', body: call.body },
        (b) =>
          `Batch job ${String(b.job_id)}: ${String(b.status)}, ${String(b.url_count)} URLs (${String(b.duplicate_count)} duplicates removed).`,
      ),
  },
  {
    name: 'map',
    title: "List a site's URLs",
    description:
      "A site's URLs, fast, nothing extracted (POST /api/v1/map): its sitemaps (robots.txt Sitemap: lines, /sitemap.xml, indexes) and the seed page's links, on the seed's host, robots.txt respected; `search` ranks them by a term. Answers within the service's time budget (`complete: false` when cut short).",
    scope: 'crawl',
    route: 'POST /api/v1/map',
    body: MapRequestDto,
    args: NoArgs,
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: '/api/v1/map', body: call.body },
        [200],
        (b) => {
          const urls = (Array.isArray(b.urls) ? b.urls : []) as Array<{ url: string }>;
          const first = urls.slice(0, 5).map((u) => u.url);
          return `${String(b.count)} URLs of ${String(b.url)} (${String(b.found)} found${b.complete ? '' : ', partial: the time budget ran out'})${first.length ? `: ${first.join(' ')}${urls.length > 5 ? ' ...' : ''}` : ''}.`;
        },
        'mapping',
      ),
  },
  {
    name: 'job_status',
    title: 'A job’s status',
    description:
      'The job (GET /api/v1/jobs/{id}): status, pages done and failed, URLs queued, cost, tokens, errors. With `wait` it follows the job until it ends (progress notifications).',
    scope: 'jobs',
    route: 'GET /api/v1/jobs/{id}',
    args: JobStatusArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (call) => {
      const args = call.args as unknown as JobStatusArgs;
      if (!args.wait) return jobAnswer(await call.rest.call({ method: 'GET', path: jobPath(args.job_id) }, call.signal));
      return jobAnswer(
        await followJob(call.rest, args.job_id, call.progress, {
          timeoutMs: (args.timeout ?? FOLLOW_DEFAULT_SECONDS) * 1000,
          pollMs: call.pollMs,
          signal: call.signal,
        }),
      );
    },
  },
  {
    name: 'job_results',
    title: 'A page of a job’s results',
    description:
      "A job's page results, `limit` at a time from `offset` (GET /api/v1/jobs/{id}/results): each item has the page's url, status, data, error and metadata; `next_offset` is where the next page starts (null after the last). Readable while the job runs.",
    scope: 'jobs',
    route: 'GET /api/v1/jobs/{id}/results',
    args: JobResultsArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (call) => resultsPage(call as unknown as ToolCall<JobResultsArgs>),
  },
  {
    name: 'job_cancel',
    title: 'Cancel a job',
    description:
      'Cancels a pending or running job (POST /api/v1/jobs/{id}/cancel); refused (409) when it has already ended. Answers with the job.',
    scope: 'jobs',
    route: 'POST /api/v1/jobs/{id}/cancel',
    args: JobArgs,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    run: async (call) => {
      const args = call.args as unknown as JobArgs;
      return jobAnswer(await call.rest.call({ method: 'POST', path: jobPath(args.job_id, '/cancel') }, call.signal));
    },
  },
  {
    name: 'list_sites',
    title: 'Your saved sites',
    description:
      'Your saved sites (GET /api/v1/sites): URL, fetch mode, default schema and crawl options; pass `site_id` to extract, crawl_start or batch_extract.',
    scope: 'full access',
    route: 'GET /api/v1/sites',
    args: NoArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (call) => answerOf(call, { method: 'GET', path: '/api/v1/sites' }, [200], (b) => `${names(b.sites, 'saved sites')}`),
  },
  {
    name: 'list_auth_profiles',
    title: 'Your auth profiles',
    description:
      "Your auth profiles (GET /api/v1/auth-profiles): logins Gleaner performs by itself for a site's hosts (credentials never shown); pass `auth_profile` to scrape, extract, analyze or map (at the top level), or in the `options` of crawl_start, batch_extract or monitor_create, to fetch pages logged in.",
    scope: 'full access',
    route: 'GET /api/v1/auth-profiles',
    args: NoArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (call) =>
      answerOf(call, { method: 'GET', path: '/api/v1/auth-profiles' }, [200], (b) => `${names(b.auth_profiles, 'auth profiles')}`),
  },
  {
    name: 'list_schemas',
    title: 'Saved schemas',
    description:
      'Your schemas, public schemas and platform schemas (GET /api/v1/schemas); pass `schema_id` to extract, crawl_start or batch_extract.',
    scope: 'full access',
    route: 'GET /api/v1/schemas',
    args: NoArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (call) => answerOf(call, { method: 'GET', path: '/api/v1/schemas' }, [200], (b) => `${names(b.schemas, 'schemas')}`),
  },
  {
    name: 'monitor_create',
    title: 'Create a monitor',
    description:
      'A monitor re-crawls on a schedule and reports what changed, field by field (POST /api/v1/monitors; docs/monitors.md): `url` (a seed to crawl) or `urls` (a list of pages, each run a batch of them) or `site_id`, `schema` or `schema_id`, `schedule` ({every: "6h"} or {cron, timezone}), optional `key` (field paths such as `products.sku`) and `notify` (a webhook). Its first run starts at once unless `paused`.',
    scope: 'crawl',
    route: 'POST /api/v1/monitors',
    body: CreateMonitorDto,
    args: NoArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: '/api/v1/monitors', body: call.body },
        [201],
        (b) => `Monitor ${String(b.id)} created; next run ${String(b.next_run_at ?? 'when resumed')}.`,
      ),
  },
  {
    name: 'monitor_list',
    title: 'Your monitors',
    description: 'Your monitors (GET /api/v1/monitors): schedule, next run, last run and its counts, records followed.',
    scope: 'crawl',
    route: 'GET /api/v1/monitors',
    args: NoArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (call) =>
      answerOf(call, { method: 'GET', path: '/api/v1/monitors', query: { limit: '100' } }, [200], (b) => names(b.monitors, 'monitors')),
  },
  {
    name: 'monitor_run',
    title: 'Run a monitor now',
    description:
      'Starts a run of the monitor now (POST /api/v1/monitors/{id}/run); refused (409) while one is going or when it cannot start. Answers with the run and its job (a crawl, or a batch for a list monitor; follow it with job_status; the changes with monitor_changes).',
    scope: 'crawl',
    route: 'POST /api/v1/monitors/{id}/run',
    args: MonitorArgs,
    annotations: { readOnlyHint: false, openWorldHint: true },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: monitorPath((call.args as unknown as MonitorArgs).monitor_id, '/run') },
        [202],
        (b) => `Run started: ${String(b.job_type ?? 'crawl')} job ${String(b.job_id)}.`,
      ),
  },
  {
    name: 'monitor_changes',
    title: 'What a monitor found changed',
    description:
      "The monitor's changes, oldest first (GET /api/v1/monitors/{id}/changes): each `{kind: added | changed | removed, url, key, fields: [{path, before, after}], detected_at}`. Pass the last `detected_at` as `since` to get only newer ones.",
    scope: 'crawl',
    route: 'GET /api/v1/monitors/{id}/changes',
    args: MonitorChangesArgs,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: (call) => {
      const args = call.args as unknown as MonitorChangesArgs;
      const query: Record<string, string> = { limit: String(args.limit ?? RESULTS_PAGE_DEFAULT) };
      if (args.since) query.since = args.since;
      if (args.kind) query.kind = args.kind;
      return answerOf(call, { method: 'GET', path: monitorPath(args.monitor_id, '/changes'), query }, [200], (b) => {
        const list = Array.isArray(b.changes) ? (b.changes as Array<Record<string, unknown>>) : [];
        return `${list.length} of ${String(b.total)} changes${list.length ? `; the last detected ${String(list[list.length - 1].detected_at)}` : ''}.`;
      });
    },
  },
  ...(['pause', 'resume'] as const).map((verb): ToolDefinition => ({
    name: `monitor_${verb}`,
    title: verb === 'pause' ? 'Pause a monitor' : 'Resume a monitor',
    description:
      verb === 'pause'
        ? 'Pauses the monitor (POST /api/v1/monitors/{id}/pause): no scheduled run until resumed; a run going on ends normally.'
        : 'Resumes the monitor (POST /api/v1/monitors/{id}/resume): its slots count again from now.',
    scope: 'crawl',
    route: `POST /api/v1/monitors/{id}/${verb}`,
    args: MonitorArgs,
    annotations: { readOnlyHint: false, idempotentHint: true, openWorldHint: false },
    run: (call) =>
      answerOf(
        call,
        { method: 'POST', path: monitorPath((call.args as unknown as MonitorArgs).monitor_id, `/${verb}`) },
        [200],
        (b) => `Monitor ${String(b.id)} ${b.paused ? 'paused' : `active; next run ${String(b.next_run_at)}`}.`,
      ),
  })),
];
