import type { JobWebhookTarget } from '@app/jobs';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { AppError, Errors, newId, SECRET_SEALER, type FieldError, type SecretSealer } from '@app/core';
import { paginateInput } from '@app/extraction';
import { JobIntakeService } from '@app/intake';
import type { LlmConfigInput } from '@app/llm';
import { savedCrawlOptions, type StoredFetchSecrets } from '@app/sites';
import { WebhooksService } from '@app/webhooks';
import type { CreateMonitorDto, MonitorNotifyDto, UpdateMonitorDto } from './dto/monitor.dto';
import { MonitorLauncher } from './monitor-launcher';
import { MonitorListJobs } from './monitor-list-jobs';
import { monitorLlm } from './monitor-llm';
import { seedProblems } from './monitor-seed';
import { MonitorRecords, MonitorRuntime } from './monitor-parts';
import { NOTIFY_KINDS, type MonitorRecord } from './monitor.types';
import { changeView, itemView, monitorListView, monitorView, runView, type MonitorView } from './monitor-view';
import { normaliseSchedule, scheduleProblems } from './schedule';
import { slotAfter } from './monitor-slots';
import { keyPlan } from './units';

/** Plain-object copy of a validated DTO (drops class prototypes and undefined fields). */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

/** Monitor events a target gets when it does not say (inline and URL targets; a saved webhook keeps its own list). */
const MONITOR_EVENTS = ['monitor.changed', 'monitor.failed'];

/** Saved monitors: validation at the field, CRUD, pause/resume, manual runs, and the reads of runs, changes and state. */
@Injectable()
export class MonitorsService {
  constructor(
    private readonly records: MonitorRecords,
    private readonly runtime: MonitorRuntime,
    private readonly intake: JobIntakeService,
    private readonly webhooks: WebhooksService,
    private readonly launcher: MonitorLauncher,
    private readonly listJobs: MonitorListJobs,
    @Inject(SECRET_SEALER) private readonly sealer: SecretSealer,
  ) {}

  async create(caller: Caller, dto: CreateMonitorDto): Promise<MonitorView> {
    const at = new Date(this.runtime.clock.now()).toISOString();
    const record: MonitorRecord = {
      _id: newId(),
      user_id: caller.userId,
      organization_id: caller.organizationId,
      name: dto.name,
      url: dto.url ?? null,
      urls: dto.urls ?? null,
      site_id: dto.site_id ?? null,
      schema: dto.schema ?? null,
      schema_id: dto.schema_id ?? null,
      options: {},
      llm_config: null,
      sealed_secrets: null,
      extraction_mode: dto.extraction_mode ?? 'model',
      paginate: null,
      schedule: normaliseSchedule(dto.schedule),
      key: dto.key ?? [],
      notify: null,
      first_run: dto.first_run ?? 'added',
      remove_after_misses: dto.remove_after_misses ?? 2,
      paused: dto.paused ?? false,
      anchor_at: at,
      next_slot_at: null,
      next_run_at: null,
      last_run_id: null,
      last_run_at: null,
      last_run_status: null,
      runs_total: 0,
      consecutive_failures: 0,
      baseline_done: false,
      created_at: at,
      updated_at: at,
    };
    Object.assign(record, this.savedOptions(dto.options, null));
    await this.check(caller, record, dto);
    Object.assign(record, this.sealed(dto.llm_config), await this.notifyOf(caller, dto.notify));
    if (!record.paused) Object.assign(record, slotAfter(record, Date.parse(at) - 1, this.runtime.config.monitorJitterMaxMs));
    await this.records.monitors.insert(record);
    return monitorView(record, null, 0);
  }

  async list(caller: Caller, limit: number, offset: number): Promise<{ monitors: Array<Omit<MonitorView, 'urls'>>; total: number }> {
    const records = await this.records.monitors.listOwn(caller, limit, offset);
    const monitors = await Promise.all(records.map(async (m) => monitorListView(await this.view(m))));
    return { monitors, total: await this.records.monitors.countOwn(caller) };
  }

  async get(caller: Caller, id: string): Promise<MonitorView> {
    return this.view(await this.record(caller, id));
  }

  /** A partial update: the given fields replace the stored ones, and the result is checked as a whole. */
  async update(caller: Caller, id: string, dto: UpdateMonitorDto): Promise<MonitorView> {
    const current = await this.record(caller, id);
    const next: MonitorRecord = { ...current };
    for (const field of [
      'name',
      'url',
      'site_id',
      'schema',
      'schema_id',
      'extraction_mode',
      'key',
      'first_run',
      'remove_after_misses',
    ] as const) {
      if (dto[field] !== undefined) (next as Record<string, unknown>)[field] = dto[field];
    }
    // One seed replaces the other: a list given turns a crawl monitor into a list monitor, and back.
    if (dto.urls !== undefined) next.urls = dto.urls;
    if (dto.urls !== undefined && dto.url === undefined) next.url = null;
    if (dto.url !== undefined && dto.urls === undefined) next.urls = null;
    // The given options replace the stored ones; headers and cookies are kept unless given (docs/api.md "Saved sites").
    if (dto.options !== undefined) Object.assign(next, this.savedOptions(dto.options, current));
    if (dto.schedule !== undefined) next.schedule = normaliseSchedule(dto.schedule);
    if (dto.schema !== undefined) next.schema_id = dto.schema_id ?? null;
    if (dto.schema_id !== undefined && dto.schema === undefined) next.schema = null;
    await this.check(caller, next, { ...dto, schedule: dto.schedule });
    if (dto.llm_config !== undefined) Object.assign(next, this.sealed(dto.llm_config));
    if (dto.notify !== undefined) Object.assign(next, await this.notifyOf(caller, dto.notify));
    if (dto.paused !== undefined) next.paused = dto.paused;
    const set: Record<string, unknown> = { ...next, updated_at: new Date(this.runtime.clock.now()).toISOString() };
    delete set._id;
    if (dto.schedule !== undefined || (dto.paused === false && current.paused)) {
      set.anchor_at = set.updated_at;
      Object.assign(
        set,
        slotAfter({ ...next, anchor_at: set.updated_at as string }, this.runtime.clock.now(), this.runtime.config.monitorJitterMaxMs),
      );
    }
    if (next.paused) Object.assign(set, { next_slot_at: null, next_run_at: null });
    const updated = await this.records.monitors.updateOwn(caller, id, set);
    if (!updated) throw Errors.notFound('Monitor');
    // A page taken out of the list is forgotten now; its records are removed by the next run (docs/monitors.md).
    const kept = new Set(updated.urls ?? []);
    const dropped = (current.urls ?? []).filter((url) => !kept.has(url));
    if (dropped.length) await this.records.state.forgetPages(id, dropped);
    return this.view(updated);
  }

  pause(caller: Caller, id: string): Promise<MonitorView> {
    return this.update(caller, id, { paused: true });
  }

  resume(caller: Caller, id: string): Promise<MonitorView> {
    return this.update(caller, id, { paused: false });
  }

  /** Deletes the monitor and its history (runs, state, changes); a run going on ends, and its changes are dropped. */
  async remove(caller: Caller, id: string): Promise<void> {
    if (!(await this.records.monitors.deleteOwn(caller, id))) throw Errors.notFound('Monitor');
    await this.records.runs.deleteMonitor(id);
    await this.records.state.deleteMonitor(id);
  }

  /** POST /run: a run now, outside the schedule (409 while a run of this monitor is going). */
  async run(caller: Caller, id: string): Promise<{ run: ReturnType<typeof runView>; job_id: string; job_type: 'crawl' | 'batch' }> {
    const monitor = await this.record(caller, id);
    const run = await this.launcher.start(monitor, 'manual', new Date(this.runtime.clock.now()).toISOString());
    if (run.status === 'skipped') throw Errors.conflict('A run of this monitor is going; try again when it ended.');
    // Refused (its model, site or schema gone...): recorded as a failed run on a failed job, and answered as what it is.
    if (run.status === 'failed' || !run.job_id) {
      throw new AppError('conflict', run.reason ?? 'The run could not start.', { extensions: { run_id: run._id, job_id: run.job_id } });
    }
    return { run: runView(run), job_id: run.job_id, job_type: monitor.urls ? 'batch' : 'crawl' };
  }

  async listRuns(caller: Caller, id: string, limit: number, offset: number) {
    await this.record(caller, id);
    const runs = await this.records.runs.list(id, limit, offset);
    return { runs: runs.map(runView), total: await this.records.runs.count(id) };
  }

  async changes(
    caller: Caller,
    id: string,
    query: { since?: string; kind?: 'added' | 'changed' | 'removed'; run_id?: string; limit: number; offset: number },
  ) {
    await this.record(caller, id);
    const filter = { since: query.since, kind: query.kind, runId: query.run_id, limit: query.limit, offset: query.offset };
    const changes = await this.records.state.listChanges(id, filter);
    return { changes: changes.map(changeView), total: await this.records.state.countChanges(id, filter) };
  }

  async currentState(caller: Caller, id: string, limit: number, offset: number) {
    await this.record(caller, id);
    const items = await this.records.state.listItems(id, limit, offset);
    return { items: items.map(itemView), total: await this.records.state.countItems(id) };
  }

  private async view(monitor: MonitorRecord): Promise<MonitorView> {
    const last = monitor.last_run_id ? await this.records.runs.find(monitor.last_run_id) : null;
    return monitorView(monitor, last, await this.records.state.countItems(monitor._id));
  }

  private async record(caller: Caller, id: string): Promise<MonitorRecord> {
    const monitor = await this.records.monitors.findOwn(caller, id);
    if (!monitor) throw Errors.notFound('Monitor');
    return monitor;
  }

  /**
   * Every rule a run would meet, at creation (422 at the field): the schedule, a seed (url, urls or site;
   * a list checked by the batch's rules and kept canonical and distinct), the schema and the key paths in
   * it, `paginate` (the schema must have a list of objects), and a usable model (the tenant's keys and chain, or the given config).
   */
  private async check(caller: Caller, monitor: MonitorRecord, dto: Partial<CreateMonitorDto>): Promise<void> {
    const problems: FieldError[] = [
      ...scheduleProblems(dto.schedule ?? monitor.schedule, this.runtime.config.monitorMinIntervalMs),
      ...seedProblems(monitor),
    ];
    if (problems.length) throw Errors.validation(problems);
    if (monitor.urls) monitor.urls = this.listJobs.check(monitor.urls).urls;
    const site = await this.intake.site(caller, monitor.site_id ?? undefined);
    if (!monitor.urls) this.intake.url(monitor.url ?? undefined, site);
    const { parsed } = await this.intake.schema(
      caller,
      { schema: monitor.schema ?? undefined, schema_id: monitor.schema_id ?? undefined },
      site?.default_schema_id ?? null,
    );
    const keys = keyPlan(parsed.jsonSchema as Record<string, unknown>, monitor.key);
    if ('problems' in keys) throw Errors.validation(keys.problems);
    // As a crawl's or batch's (one rule): a list of objects to follow over pages, its max_pages defaulted. The given
    // one replaces the stored one (`null` removes it); the stored one is checked against a new schema too.
    const paginate = dto.paginate !== undefined ? dto.paginate : monitor.paginate;
    monitor.paginate = paginateInput(paginate ?? undefined, parsed.jsonSchema);
    await this.intake.plan(caller, dto.llm_config ?? monitorLlm(monitor, this.sealer));
  }

  /** The options a monitor keeps (@app/sites saved-fetch-secrets.ts): headers and cookies sealed, their names in the clear. */
  private savedOptions(
    given: CreateMonitorDto['options'],
    current: MonitorRecord | null,
  ): Partial<StoredFetchSecrets> & { options: Record<string, unknown> } {
    return savedCrawlOptions(this.sealer, given ? plain<Record<string, unknown>>({ ...given }) : {}, current, 'body.options');
  }

  /** The llm_config without its key, and the key sealed (or none). */
  private sealed(config: LlmConfigInput | undefined): Pick<MonitorRecord, 'llm_config' | 'sealed_secrets'> {
    if (!config) return { llm_config: null, sealed_secrets: null };
    const { api_key, ...rest } = plain(config);
    return {
      llm_config: { ...rest, byok_key: Boolean(api_key) },
      sealed_secrets: api_key ? this.sealer.seal(JSON.stringify({ llm_api_key: api_key })) : null,
    };
  }

  /** The notify targets, resolved now as a job's are (an unknown webhook is a 422 at body.notify.webhook_id). */
  private async notifyOf(caller: Caller, notify: MonitorNotifyDto | undefined): Promise<Pick<MonitorRecord, 'notify'>> {
    if (!notify) return { notify: null };
    const targets: JobWebhookTarget[] = [];
    if (notify.webhook_id) {
      const saved = await this.webhooks.resolveForJob(caller, notify.webhook_id, 'body.notify.webhook_id');
      targets.push({ key: `saved:${saved.id}`, kind: 'saved', webhook_id: saved.id, url: null, secret: null, events: [], headers: [] });
    }
    if (notify.webhook) {
      targets.push({
        key: 'inline',
        kind: 'inline',
        webhook_id: null,
        url: notify.webhook.url,
        secret: notify.webhook.secret ? this.sealer.seal(notify.webhook.secret) : null,
        events: notify.webhook.events ?? MONITOR_EVENTS,
        headers: (notify.webhook.headers ?? []).map((h) => ({ name: h.name, value: h.value })),
      });
    }
    if (notify.webhook_url) {
      targets.push({
        key: 'url',
        kind: 'url',
        webhook_id: null,
        url: notify.webhook_url,
        secret: null,
        events: MONITOR_EVENTS,
        headers: [],
      });
    }
    if (targets.length === 0) throw Errors.validation([{ location: 'body.notify', message: 'needs a webhook_id, webhook or webhook_url' }]);
    return { notify: { targets, on: notify.on ?? [...NOTIFY_KINDS] } };
  }
}
