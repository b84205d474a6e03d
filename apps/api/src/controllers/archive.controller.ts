import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  ApiAcceptedResponse,
  ApiBearerAuth,
  ApiBody,
  ApiConsumes,
  ApiOkResponse,
  ApiOperation,
  ApiProduces,
  ApiTags,
} from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { once } from 'node:events';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import {
  ArchivedPageQuery,
  ArchivedPageService,
  ReextractRequestDto,
  ReextractRequestsService,
  ReextractResponse,
  WARC_MEDIA_TYPES,
  WarcExportService,
  WarcExtractQuery,
  WarcExtractResponse,
  WarcRequestsService,
} from '@app/crawl';
import { LOGGER, type AppLogger } from '@app/observability';
import { Idempotent } from '../idempotency.interceptor';
import { ApiProblems } from '../openapi-constraints';

/** The path that takes a raw WARC body (application/warc, application/gzip): create-app.ts lets it through here only. */
export const WARC_ROUTES = ['/api/v1/warc-extract'];

/** A stored page must never run as a page of the API's origin (docs/security.md "Archived pages"). */
const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox',
  'cache-control': 'private, no-store',
};

/** The page archive's operations (docs/archive.md): re-extraction, a result's page, WARC out and in. */
@ApiTags('Archive')
@ApiBearerAuth()
@Controller('api/v1')
export class ArchiveController {
  constructor(
    private readonly reextracts: ReextractRequestsService,
    private readonly pages: ArchivedPageService,
    private readonly warcOut: WarcExportService,
    private readonly warcIn: WarcRequestsService,
    @Inject(LOGGER) private readonly logger: AppLogger,
  ) {}

  @Post('jobs/:id/reextract')
  @RequiresScope('crawl')
  @Idempotent()
  @HttpCode(202)
  @ApiProblems(409)
  @ApiOperation({
    summary: "Extract a finished job's archived pages again, with a new schema, model or extraction mode: nothing is fetched",
    description:
      'Starts a `reextract` job (202, Location = the job, `source_job_id` on it) on the crawl engine over the pages the job `{id}` kept in the archive (crawl, batch, reextract and warc-extract jobs with `archive: true`, an extract with `archive: true`: one page). No request reaches a site. ' +
      'Results, crawl map, events, webhooks, cost and learned programs (`extraction_mode: auto`) work as for a crawl; a page whose archive is gone (past GLEANER_ARCHIVE_TTL_DAYS, deleted) is skipped with reason `archive_missing`. ' +
      "Without `schema` and `schema_id` the source job's schema is used. 409 while the job runs, for a job type that keeps no pages, or when it has no pages to re-extract (an extract that kept no page).",
  })
  @ApiAcceptedResponse({ type: ReextractResponse })
  async reextract(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() body: ReextractRequestDto,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const answer = await this.reextracts.start(caller, id, body, String(request.id), request);
    void reply.header('location', answer.location);
    return answer.body;
  }

  @Get('jobs/:id/results/:resultId/page')
  @RequiresScope('jobs')
  @ApiOperation({
    summary: 'The archived page a result was extracted from: the body as fetched, or the text the model saw',
    description:
      'The body with its original content type, always as an attachment with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: sandbox`, so a stored page never runs as a page of this origin. ' +
      '`view=text`: the text (markdown) the model saw, converted again from the stored body. 404 when the job kept no pages or the page is past its retention.',
  })
  @ApiProduces('application/octet-stream', 'text/plain')
  @ApiOkResponse({ description: 'The stored body (its original Content-Type) or the text.', schema: { type: 'string', format: 'binary' } })
  async page(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('resultId') resultId: string,
    @Query() query: ArchivedPageQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const page = await this.pages.page(caller, id, resultId, query.view ?? 'raw');
    void reply.headers({ ...PAGE_HEADERS, 'content-type': page.contentType });
    if (page.attachment) void reply.header('content-disposition', `attachment; filename="${page.filename}"`);
    await reply.send(page.body);
  }

  @Get('jobs/:id/warc')
  @RequiresScope('jobs')
  @ApiOperation({
    summary: "The job's archived pages as a WARC/1.1 file (one gzip member per record), streamed",
    description:
      'A `warcinfo` record, then per archived page its `request` and `response` records (WARC-Concurrent-To each other; SHA-256 block and payload digests), a `conversion` record with the rendered HTML of a browser fetch, and a `metadata` record (JSON) that names the Gleaner result. Readable by any WARC tool (warcio, pywb, browsertrix).',
  })
  @ApiProduces('application/gzip')
  @ApiOkResponse({ description: 'The WARC file (`.warc.gz`).', schema: { type: 'string', format: 'binary' } })
  async warc(@CurrentCaller() caller: Caller, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    const file = await this.warcOut.export(caller, id);
    const headers = Object.fromEntries(Object.entries(reply.getHeaders()).map(([name, value]) => [name, String(value)]));
    reply.hijack();
    const response = reply.raw;
    response.writeHead(200, {
      ...headers,
      'content-type': 'application/gzip',
      'content-disposition': `attachment; filename="${file.filename}"`,
      'cache-control': 'private, no-store',
    });
    try {
      for await (const chunk of file.chunks) {
        if (response.destroyed) return;
        if (!response.write(chunk)) await once(response, 'drain');
      }
      response.end();
    } catch (error) {
      this.logger.error({ err: error, job_id: id }, 'WARC export failed mid-stream');
      response.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  @Post('warc-extract')
  @RequiresScope('crawl')
  @HttpCode(202)
  @ApiProblems(409, 413, 415)
  @ApiConsumes(...WARC_MEDIA_TYPES)
  @ApiBody({
    description:
      'A WARC file (WARC/1.0 or 1.1), plain (`application/warc`) or gzip-compressed (`application/gzip`), up to GLEANER_WARC_MAX_BYTES.',
    schema: { type: 'string', format: 'binary' },
  })
  @ApiOperation({
    summary: 'Extract every HTML page of a WARC file you have (your crawls, browsertrix, Common Crawl slices): a warc-extract job',
    description:
      'The one exception to JSON-only bodies and the JSON body limit: the raw WARC body is streamed into storage as it arrives (never whole in memory), up to GLEANER_WARC_MAX_BYTES (413 beyond, nothing kept); a body that does not begin like a WARC file is a 422. ' +
      'The schema and options come by saved ids and query parameters. The job (202, Location) extracts each 2xx HTML `response` record once per URL as a crawl page, on the crawl engine, without fetching anything; a record that cannot be read (wrong length, over the size cap, a header over 64 KiB, a broken HTTP message) is a failed item with the reason, and the rest of the file still counts. ' +
      'Reading stops at corrupt or truncated compression, or when the file expands past 20 times its size (a gzip bomb), with a failed item saying where.',
  })
  @ApiAcceptedResponse({ type: WarcExtractResponse })
  async warcExtract(
    @CurrentCaller() caller: Caller,
    @Query() query: WarcExtractQuery,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const length = Number(request.headers['content-length']);
    const body = isStream(request.body) ? request.body : undefined;
    const answer = await this.warcIn.start(caller, body, Number.isFinite(length) ? length : undefined, query, String(request.id), request);
    void reply.header('location', answer.location);
    return answer.body;
  }
}

function isStream(value: unknown): value is AsyncIterable<Buffer> {
  return typeof value === 'object' && value !== null && typeof (value as AsyncIterable<Buffer>)[Symbol.asyncIterator] === 'function';
}
