import { Controller, Get, Headers, Param, Query, Req, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import {
  bodyHeaders,
  DebugCaptureSetResponse,
  DownloadLinkQuery,
  DownloadLinkResponse,
  ResultItemResponse,
  ResultsQuery,
  ResultsService,
  ScreenshotsService,
  type BodyStream,
} from '@app/results';
import { ApiProblems } from '../openapi-constraints';

export const RESULT_TYPES = ['application/json', 'application/x-ndjson', 'application/yaml'] as const;

/** Streams a prepared body on the raw response (access and format were checked before: errors are still problem+json). */
export async function stream(
  results: ResultsService,
  reply: FastifyReply,
  body: BodyStream,
  extra: Record<string, string> = {},
): Promise<void> {
  // A body already in memory (most results reads): Fastify sends it with the reply's headers, without a hijack.
  if (typeof body.chunks === 'string') return void (await reply.headers({ ...extra, ...bodyHeaders(body) }).send(body.chunks));
  const headers = Object.fromEntries(Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]));
  reply.hijack();
  await results.send(reply.raw, body, { ...headers, ...extra });
}

@ApiTags('Jobs')
@ApiBearerAuth()
@Controller('api/v1/jobs')
@RequiresScope('jobs')
export class ResultsController {
  constructor(
    private readonly results: ResultsService,
    private readonly screenshots: ScreenshotsService,
  ) {}

  @Get(':id/results')
  @ApiProblems(406)
  @ApiOperation({
    summary: "A job's page results as JSON, JSON lines or YAML (streamed; readable while the job runs)",
    description:
      '`format` wins over `Accept` (application/json, application/x-ndjson or application/jsonl, application/yaml or text/yaml). 406 otherwise.',
  })
  @ApiProduces(...RESULT_TYPES)
  @ApiOkResponse({ type: [ResultItemResponse] })
  async list(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: ResultsQuery,
    @Headers('accept') accept: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const body = await this.results.exportResults(caller, id, { format: query.format, merge: query.merge === 'true', accept });
    await stream(this.results, reply, body, { vary: 'Accept' });
  }

  @Get(':id/download')
  @ApiProblems(406, 409)
  @ApiOperation({
    summary: 'A signed link (valid 1 hour, no bearer key needed) to download the results file of a finished job',
    description: '`format` (default json) and `merge` are signed into the link. 409 while the job is pending or running.',
  })
  @ApiOkResponse({ type: DownloadLinkResponse })
  download(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: DownloadLinkQuery, @Req() request: FastifyRequest) {
    return this.results.downloadLink(caller, id, { format: query.format, merge: query.merge === 'true' }, request);
  }

  @Get(':id/debug-capture')
  @ApiOperation({ summary: 'Model prompts and metadata captured for a job with capture_debug' })
  @ApiOkResponse({ type: DebugCaptureSetResponse })
  async debugCapture(@CurrentCaller() caller: Caller, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    await stream(this.results, reply, await this.results.debugCaptures(caller, id));
  }

  @Get(':id/screenshots/:screenshotId')
  @ApiOperation({ summary: "A scrape page's screenshot (the path in its `data.screenshot`)" })
  @ApiProduces('image/png')
  @ApiOkResponse({ description: 'The PNG', schema: { type: 'string', format: 'binary' } })
  async screenshot(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('screenshotId') screenshotId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const png = await this.screenshots.read(caller, id, screenshotId);
    await reply.header('content-type', 'image/png').header('cache-control', 'private, no-store').send(png);
  }
}
