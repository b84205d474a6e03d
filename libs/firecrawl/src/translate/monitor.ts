import type { MonitorsService } from '@app/monitors';
import { optionNotSupported } from '../wire/errors';
import type { CreateMonitorRequest, MonitorTarget } from '../wire/requests';
import type { FirecrawlCheck, FirecrawlCheckPage, FirecrawlMonitor } from '../wire/responses';
import { crawlOptions, refuseUnsupportedCrawl } from './crawl-options';
import { refuseTagFilters, refuseUnsupported } from './fetch-options';
import { planFormats } from './formats';
import { jsonFormatSchema } from './model-formats';

type MonitorView = Awaited<ReturnType<MonitorsService['get']>>;
type RunView = Awaited<ReturnType<MonitorsService['listRuns']>>['runs'][number];
type ChangeView = Awaited<ReturnType<MonitorsService['changes']>>['changes'][number];

/** The one target a Gleaner monitor watches (a monitor is a seed to crawl or a list of pages). */
export const TARGET_ID = 'target-1';

const UNITS: Record<string, string> = { second: 's', minute: 'm', hour: 'h', day: 'd' };

/**
 * Firecrawl's schedule as Gleaner's: a cron expression as it is (with its time zone), or the plain-language
 * forms `every N minutes|hours|days`, `hourly`, `daily`, `weekly`, `daily at HH:MM`.
 */
export function gleanerSchedule(schedule: { cron?: string; text?: string; timezone?: string }, at = 'schedule'): Record<string, string> {
  const zone: Record<string, string> = schedule.timezone ? { timezone: schedule.timezone } : {};
  if (schedule.cron) return { cron: schedule.cron, ...zone };
  const text = (schedule.text ?? '').trim().toLowerCase();
  const every = /^every (\d+)?\s*(second|minute|hour|day)s?$/.exec(text);
  if (every) return { every: `${every[1] ?? '1'}${UNITS[every[2]]}` };
  const named: Record<string, string> = { hourly: '1h', daily: '1d', weekly: '7d' };
  if (named[text]) return { every: named[text] };
  const dailyAt = /^daily at (\d{1,2}):(\d{2})$/.exec(text);
  if (dailyAt && Number(dailyAt[1]) < 24 && Number(dailyAt[2]) < 60)
    return { cron: `${Number(dailyAt[2])} ${Number(dailyAt[1])} * * *`, ...zone };
  throw optionNotSupported(
    `${at}.text`,
    `the schedule '${schedule.text ?? ''}' (give cron, or text such as 'every 30 minutes', 'hourly', 'daily at 9:00')`,
  );
}

/** The schema a target's pages are compared by: a Gleaner monitor diffs extracted fields, so a json format with a schema. */
function targetSchema(target: Extract<MonitorTarget, { type: 'scrape' | 'crawl' }>, at: string): Record<string, unknown> {
  const scrape = target.scrapeOptions ?? {};
  refuseUnsupported(scrape, `${at}.scrapeOptions.`);
  refuseTagFilters(scrape, `${at}.scrapeOptions.`, 'a monitor (its fields are extracted from the page)');
  const plan = planFormats(scrape.formats ? scrape : { formats: [] }, `${at}.scrapeOptions.formats`);
  const schema = jsonFormatSchema(plan, `${at}.scrapeOptions.formats`);
  if (!schema)
    throw optionNotSupported(
      `${at}.scrapeOptions.formats`,
      "a monitor without a json format: this server compares extracted fields (add {type: 'json', schema})",
    );
  return schema;
}

/** The crawl options a crawl monitor takes (max_pages only when the target gives limit). */
const MONITOR_CRAWL_OPTIONS = [
  'max_depth',
  'include_patterns',
  'exclude_patterns',
  'follow_pattern',
  'same_domain_only',
  'use_sitemap',
  'respect_robots',
  'delay_ms',
  'concurrency',
  'headers',
  'wait_for',
];

/** The Gleaner monitor fields of Firecrawl's targets (exactly one scrape or crawl target). */
export function gleanerTarget(targets: MonitorTarget[]): Record<string, unknown> {
  if (targets.length !== 1) throw optionNotSupported('targets', 'more than one target per monitor (create one monitor per target)');
  const target = targets[0];
  if (target.type === 'search') throw optionNotSupported('targets[0]', 'search targets (there is no web search)');
  const schema = targetSchema(target, 'targets[0]');
  if (target.type === 'scrape') return { urls: target.urls, schema };
  const crawl = { ...(target.crawlOptions ?? {}), url: target.url };
  refuseUnsupportedCrawl(crawl, 'targets[0].crawlOptions.');
  const translated = crawlOptions(crawl, target.scrapeOptions ?? {});
  // A monitor re-crawls on every run: Firecrawl's 10,000-page crawl default is not a monitor's; Gleaner's own applies unless limit is given.
  const kept = crawl.limit ? ['max_pages', ...MONITOR_CRAWL_OPTIONS] : MONITOR_CRAWL_OPTIONS;
  const options = Object.fromEntries(kept.filter((name) => translated[name] !== undefined).map((name) => [name, translated[name]]));
  return { url: target.url, schema, options };
}

/** The Gleaner fields of a whole create request (the notification by email is refused; the webhook gets Gleaner's monitor events). */
export function gleanerMonitor(request: CreateMonitorRequest): Record<string, unknown> {
  if (request.notification?.email?.enabled) throw optionNotSupported('notification.email', 'e-mail notifications (use a webhook)');
  if (request.goal || request.judgeEnabled) throw optionNotSupported(request.goal ? 'goal' : 'judgeEnabled', 'model-judged goals');
  return {
    name: request.name,
    schedule: gleanerSchedule(request.schedule),
    ...gleanerTarget(request.targets),
    ...(request.webhook ? { notify: { webhook_url: request.webhook.url, on: ['changed', 'added', 'removed', 'failed'] } } : {}),
  };
}

/** A Gleaner monitor as Firecrawl's Monitor. */
export function firecrawlMonitor(view: MonitorView, retentionDays: number): FirecrawlMonitor {
  const schedule = view.schedule as { every?: string; cron?: string; timezone?: string };
  const scrapeOptions = { formats: [{ type: 'json' as const, schema: (view.schema ?? {}) as Record<string, unknown> }] };
  const target = view.urls
    ? { id: TARGET_ID, type: 'scrape' as const, urls: view.urls, scrapeOptions }
    : { id: TARGET_ID, type: 'crawl' as const, url: view.url ?? '', scrapeOptions };
  const running = view.last_run && (view.last_run.status === 'running' || view.last_run.status === 'starting');
  return {
    id: view.id,
    name: view.name,
    status: view.paused ? ('paused' as const) : ('active' as const),
    schedule: { ...(schedule.cron ? { cron: schedule.cron } : { text: `every ${schedule.every}` }), timezone: schedule.timezone ?? 'UTC' },
    nextRunAt: view.next_run_at ?? null,
    lastRunAt: view.last_run?.created_at ?? null,
    currentCheckId: running ? view.last_run!.id : null,
    targets: [target],
    webhook: null,
    notification: null,
    retentionDays,
    estimatedCreditsPerMonth: null,
    lastCheckSummary: view.last_run ? checkSummary(view.last_run) : null,
    createdAt: view.created_at,
    updatedAt: view.updated_at,
  };
}

const CHECK_STATUS: Record<string, 'queued' | 'running' | 'completed' | 'failed' | 'skipped_overlap'> = {
  starting: 'queued',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  skipped: 'skipped_overlap',
};

function checkSummary(run: RunView) {
  const c = run.counts;
  return {
    totalPages: c.unchanged + c.changed + c.added + c.removed + c.failed,
    same: c.unchanged,
    changed: c.changed,
    new: c.added,
    removed: c.removed,
    error: c.failed,
  };
}

/** A Gleaner monitor run as Firecrawl's MonitorCheck. */
export function firecrawlCheck(run: RunView, listMonitor: boolean): FirecrawlCheck {
  return {
    id: run.id,
    monitorId: run.monitor_id,
    status: CHECK_STATUS[run.status] ?? 'queued',
    trigger: run.trigger === 'manual' ? ('manual' as const) : ('scheduled' as const),
    scheduledFor: run.due_at,
    startedAt: run.created_at,
    finishedAt: run.finished_at,
    billingStatus: 'not_applicable' as const,
    summary: checkSummary(run),
    targetResults: [
      listMonitor
        ? { targetId: TARGET_ID, type: 'scrape' as const, expectedJobs: run.job_id ? [run.job_id] : [] }
        : { targetId: TARGET_ID, type: 'crawl' as const, ...(run.job_id ? { crawlId: run.job_id } : {}) },
    ],
    error: run.status === 'failed' ? run.reason : null,
    createdAt: run.created_at,
    updatedAt: run.finished_at ?? run.created_at,
  };
}

const PAGE_STATUS = { added: 'new', changed: 'changed', removed: 'removed' } as const;

/** A Gleaner change as Firecrawl's MonitorCheckPage (a field-level JSON diff). */
export function firecrawlCheckPage(change: ChangeView): FirecrawlCheckPage {
  const diff: Record<string, { previous: unknown; current: unknown }> = {};
  for (const field of change.fields) diff[field.path] = { previous: field.before, current: field.after };
  return {
    id: change.id,
    targetId: TARGET_ID,
    url: change.url,
    status: PAGE_STATUS[change.kind],
    diff: change.kind === 'changed' ? { json: diff } : null,
    metadata: { key: change.key },
    createdAt: change.detected_at,
  };
}
