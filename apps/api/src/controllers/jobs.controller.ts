import { Controller, Delete, Get, Headers, HttpCode, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, SuccessResponse, type Caller } from '@app/auth';
import { JobListResponse, JobResponse, JobStreamService, JobsService, ListJobsQuery, parseLastEventId } from '@app/jobs';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('Jobs')
@ApiBearerAuth()
@Controller('api/v1/jobs')
@RequiresScope('jobs')
export class JobsController {
  constructor(
    private readonly jobs: JobsService,
    private readonly streams: JobStreamService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'List your jobs, newest first',
    description:
      'Narrowed by `status`, `type`, `site_id`, `since` (created at or after) and `error_category`, all together; `total` counts the matches.',
  })
  @ApiOkResponse({ type: JobListResponse })
  list(@CurrentCaller() caller: Caller, @Query() query: ListJobsQuery) {
    return this.jobs.list(caller, query.limit ?? 20, query.offset ?? 0, {
      status: query.status,
      type: query.type,
      siteId: query.site_id,
      since: query.since,
      errorCategory: query.error_category,
    });
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a job' })
  @ApiOkResponse({ type: JobResponse })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.jobs.get(caller, id);
  }

  @Post(':id/cancel')
  @ApiProblems(409)
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel a pending or running job (409 when it already finished)' })
  @ApiOkResponse({ type: JobResponse })
  cancel(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.jobs.cancel(caller, id);
  }

  @Delete(':id')
  @ApiProblems(409)
  @ApiOperation({
    summary: 'Delete a finished job: its results, crawl map, events and the archived pages only it referenced (409 while it runs)',
    description:
      'The job is then no longer found or listed; usage reports still count what it cost. Archived bodies that another job of yours also references stay (docs/archive.md).',
  })
  @ApiOkResponse({ type: SuccessResponse })
  async remove(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<{ success: true }> {
    await this.jobs.delete(caller, id);
    return { success: true };
  }

  @Get(':id/stream')
  @ApiOperation({
    summary: 'Stream job events (SSE): status, result, error, complete',
    description: 'Every event has an id (per-job sequence). Reconnect with Last-Event-ID to resume exactly. Heartbeat comment every 15 s.',
  })
  @ApiProduces('text/event-stream')
  async stream(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.streams.authorize(caller, id);
    const headers = Object.fromEntries(Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]));
    reply.hijack();
    const query = request.query as Record<string, string | undefined>;
    await this.streams.stream(id, parseLastEventId(lastEventId ?? query.last_event_id), request.raw, reply.raw, headers);
  }
}
