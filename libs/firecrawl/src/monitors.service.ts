import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors } from '@app/core';
import { CreateMonitorDto, MonitorsService, UpdateMonitorDto } from '@app/monitors';
import { publicBaseUrl, type RequestOrigin } from '@app/results';
import { asGleanerDto } from './gleaner-dto';
import { firecrawlCheck, firecrawlCheckPage, firecrawlMonitor, gleanerMonitor, gleanerSchedule, gleanerTarget } from './translate/monitor';
import { parseWith } from './wire/errors';
import { checkQuerySchema, createMonitorRequestSchema, listQuerySchema, updateMonitorRequestSchema } from './wire/requests';
import type {
  CheckDetailResponse,
  CheckListResponse,
  CheckResponse,
  FirecrawlMonitor,
  MonitorDeletedResponse,
  MonitorListResponse,
  MonitorResponse,
} from './wire/responses';

/** Runs searched for one check (a check is one of the monitor's latest runs). */
const RUNS_SEARCHED = 100;

/** /v2/monitor*: Firecrawl's monitors as Gleaner monitors (docs/firecrawl.md "Monitors"; docs/monitors.md). */
@Injectable()
export class FirecrawlMonitorsService {
  constructor(
    private readonly monitors: MonitorsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, body: unknown): Promise<MonitorResponse> {
    const request = parseWith(createMonitorRequestSchema, body);
    const view = await this.monitors.create(caller, await asGleanerDto(CreateMonitorDto, gleanerMonitor(request)));
    return { success: true, data: this.monitor(view) };
  }

  async list(caller: Caller, query: unknown): Promise<MonitorListResponse> {
    const { limit = 20, offset = 0 } = parseWith(listQuerySchema, query, 'query');
    const { monitors } = await this.monitors.list(caller, limit, offset);
    const views = await Promise.all(monitors.map((m) => this.monitors.get(caller, m.id)));
    return { success: true, data: views.map((view) => this.monitor(view)) };
  }

  async get(caller: Caller, id: string): Promise<MonitorResponse> {
    return { success: true, data: this.monitor(await this.monitors.get(caller, id)) };
  }

  async update(caller: Caller, id: string, body: unknown): Promise<MonitorResponse> {
    const request = parseWith(updateMonitorRequestSchema, body);
    const fields: Record<string, unknown> = {
      ...(request.name ? { name: request.name } : {}),
      ...(request.schedule ? { schedule: gleanerSchedule(request.schedule) } : {}),
      ...(request.targets ? gleanerTarget(request.targets) : {}),
      ...(request.webhook ? { notify: { webhook_url: request.webhook.url, on: ['changed', 'added', 'removed', 'failed'] } } : {}),
    };
    if (Object.keys(fields).length > 0) await this.monitors.update(caller, id, await asGleanerDto(UpdateMonitorDto, fields));
    if (request.status === 'paused') await this.monitors.pause(caller, id);
    if (request.status === 'active') await this.monitors.resume(caller, id);
    return this.get(caller, id);
  }

  async remove(caller: Caller, id: string): Promise<MonitorDeletedResponse> {
    await this.monitors.remove(caller, id);
    return { success: true, data: { id } };
  }

  async run(caller: Caller, id: string): Promise<CheckResponse> {
    const view = await this.monitors.get(caller, id);
    const started = await this.monitors.run(caller, id);
    return { success: true, data: firecrawlCheck(started.run, Boolean(view.urls)) };
  }

  async checks(caller: Caller, id: string, query: unknown): Promise<CheckListResponse> {
    const { limit = 20, offset = 0 } = parseWith(listQuerySchema, query, 'query');
    const view = await this.monitors.get(caller, id);
    const { runs } = await this.monitors.listRuns(caller, id, limit, offset);
    return { success: true, data: runs.map((run) => firecrawlCheck(run, Boolean(view.urls))) };
  }

  /** One check: the run and its changes as pages (field diffs), paged with `next`. Unchanged pages are counted in `summary`, not listed. */
  async check(caller: Caller, id: string, checkId: string, query: unknown, origin: RequestOrigin): Promise<CheckDetailResponse> {
    const { limit = 20, skip = 0, status } = parseWith(checkQuerySchema, query, 'query');
    const view = await this.monitors.get(caller, id);
    const { runs } = await this.monitors.listRuns(caller, id, RUNS_SEARCHED, 0);
    const run = runs.find((r) => r.id === checkId);
    if (!run) throw Errors.notFound('Monitor check');
    const kind = status === 'new' ? 'added' : status === 'changed' || status === 'removed' ? status : undefined;
    const empty = status === 'same' || status === 'error';
    const { changes, total } = empty
      ? { changes: [], total: 0 }
      : await this.monitors.changes(caller, id, { run_id: checkId, kind, limit, offset: skip });
    const base = publicBaseUrl(this.config.publicUrl, origin, this.config.port);
    const next =
      skip + changes.length < total
        ? `${base}/v2/monitor/${id}/checks/${checkId}?skip=${skip + changes.length}&limit=${limit}${status ? `&status=${status}` : ''}`
        : null;
    return {
      success: true,
      data: { ...firecrawlCheck(run, Boolean(view.urls)), pages: changes.map(firecrawlCheckPage), next },
      next,
    };
  }

  private monitor(view: Awaited<ReturnType<MonitorsService['get']>>): FirecrawlMonitor {
    return firecrawlMonitor(view, this.config.monitorHistoryDays);
  }
}
