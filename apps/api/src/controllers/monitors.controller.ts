import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Inject } from '@nestjs/common';
import {
  CreateMonitorDto,
  ListMonitorsQuery,
  MonitorChangeListResponse,
  MonitorChangesQuery,
  MonitorListResponse,
  MonitorResponse,
  MonitorRunListResponse,
  MonitorRunsQuery,
  MonitorRunStartedResponse,
  MonitorsService,
  MonitorStateQuery,
  MonitorStateResponse,
  UpdateMonitorDto,
} from '@app/monitors';
import { publicBaseUrl } from '@app/results';
import { ApiProblems } from '../openapi-constraints';

/** Monitors: scheduled re-crawls that report what changed (docs/monitors.md). The `crawl` scope: every run is a crawl. */
@ApiTags('Monitors')
@ApiBearerAuth()
@Controller('api/v1/monitors')
@RequiresScope('crawl')
export class MonitorsController {
  constructor(
    private readonly monitors: MonitorsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a monitor (201, Location = the monitor)',
    description:
      'Checked at creation, each problem a 422 at its field: the schedule (cron through cron-parser, `every` at least GLEANER_MONITOR_MIN_INTERVAL_S), the seed (`url`, or `urls` checked as POST /batch/extract checks a list: an invalid URL at `body.urls[i]`, normalised duplicates dropped; not both), the site, schema and webhook, the key paths in the schema, options a list cannot take, and a usable model. Not paused, its first run is due at once.',
  })
  @ApiCreatedResponse({ type: MonitorResponse })
  async create(
    @CurrentCaller() caller: Caller,
    @Body() dto: CreateMonitorDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const monitor = await this.monitors.create(caller, dto);
    void reply.header('location', `${publicBaseUrl(this.config.publicUrl, request, this.config.port)}/api/v1/monitors/${monitor.id}`);
    return monitor;
  }

  @Get()
  @ApiOperation({ summary: 'List your monitors, newest first' })
  @ApiOkResponse({ type: MonitorListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListMonitorsQuery) {
    return this.monitors.list(caller, query.limit ?? 20, query.offset ?? 0);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a monitor: its settings, next run, last run and counts' })
  @ApiOkResponse({ type: MonitorResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.monitors.get(caller, id);
  }

  @Put(':id')
  @ApiOperation({ summary: 'Update a monitor (a partial update: the fields given replace the stored ones)' })
  @ApiOkResponse({ type: MonitorResponse })
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() dto: UpdateMonitorDto) {
    return this.monitors.update(caller, id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Delete a monitor and its history',
    description: 'Its runs, records and changes go with it. A run going on ends as a crawl; its changes are not recorded.',
  })
  @ApiNoContentResponse({ description: 'Deleted.' })
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<void> {
    await this.monitors.remove(caller, id);
  }

  @Post(':id/run')
  @HttpCode(202)
  @ApiProblems(409)
  @ApiOperation({
    summary: "Run a monitor now (202, Location = the run's job; 409 while a run of it is going, or when it cannot start)",
    description:
      "The run's job is a crawl, or a batch for a list monitor (`urls`). A run that cannot start (no usable model any more, its site or schema deleted, its sealed key unreadable, any refusal at job creation) is recorded as a failed run on a job recorded failed at once, sends `monitor.failed`, and is answered 409 with its reason (`detail`), `run_id` and `job_id`.",
  })
  @ApiAcceptedResponse({ type: MonitorRunStartedResponse })
  async run(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const started = await this.monitors.run(caller, id);
    const statusUrl = `${publicBaseUrl(this.config.publicUrl, request, this.config.port)}/api/v1/jobs/${started.job_id}`;
    void reply.header('location', statusUrl);
    return { ...started, status_url: statusUrl };
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({ summary: 'Pause a monitor (no scheduled run until resumed; a run going on ends normally)' })
  @ApiOkResponse({ type: MonitorResponse })
  pause(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.monitors.pause(caller, id);
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({ summary: 'Resume a monitor (its slots count again from now)' })
  @ApiOkResponse({ type: MonitorResponse })
  resume(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.monitors.resume(caller, id);
  }

  @Get(':id/runs')
  @ApiOperation({ summary: "A monitor's runs, newest first, with their counts (skipped slots included)" })
  @ApiOkResponse({ type: MonitorRunListResponse })
  runs(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: MonitorRunsQuery) {
    return this.monitors.listRuns(caller, id, query.limit ?? 20, query.offset ?? 0);
  }

  @Get(':id/changes')
  @ApiOperation({
    summary: "A monitor's changes, oldest first (`since` = the last `detected_at` you saw follows them without gaps)",
    description: '`format=jsonl` answers one change per line (application/x-ndjson) instead of `{changes, total}`.',
  })
  @ApiProduces('application/json', 'application/x-ndjson')
  @ApiOkResponse({ type: MonitorChangeListResponse })
  async changes(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: MonitorChangesQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const page = await this.monitors.changes(caller, id, { ...query, limit: query.limit ?? 20, offset: query.offset ?? 0 });
    if (query.format !== 'jsonl') return page;
    void reply.header('content-type', 'application/x-ndjson');
    return page.changes.map((c) => `${JSON.stringify(c)}\n`).join('');
  }

  @Get(':id/state')
  @ApiOperation({ summary: 'The current record of every key of a monitor' })
  @ApiOkResponse({ type: MonitorStateResponse })
  state(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: MonitorStateQuery) {
    return this.monitors.currentState(caller, id, query.limit ?? 20, query.offset ?? 0);
  }
}
