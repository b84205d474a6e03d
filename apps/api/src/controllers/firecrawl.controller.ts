import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import {
  FirecrawlExtractService,
  FirecrawlJobStartsService,
  FirecrawlJobStatusService,
  FirecrawlMapAndTeamService,
  FirecrawlScrapeService,
} from '@app/firecrawl';

/**
 * The Firecrawl-compatible API (docs/firecrawl.md): Firecrawl's SDKs, MCP server and integrations pointed at
 * Gleaner. Each route is one call of @app/firecrawl; its own OpenAPI document is /v2/openapi.json, and its
 * errors are Firecrawl's `{success: false, error}` (create-app.ts). Bodies are read by the lib's schemas
 * (Firecrawl's fields; unknown ones ignored), so they come in as `unknown`.
 */
@ApiExcludeController()
@Controller('v2')
export class FirecrawlScrapeController {
  constructor(private readonly scrapes: FirecrawlScrapeService) {}

  @Post('scrape')
  @HttpCode(200)
  @RequiresScope('extract')
  scrape(@CurrentCaller() caller: Caller, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.scrapes.scrape(caller, body, String(request.id), request);
  }
}

@ApiExcludeController()
@Controller('v2')
@RequiresScope('crawl')
export class FirecrawlCrawlController {
  constructor(
    private readonly starts: FirecrawlJobStartsService,
    private readonly statuses: FirecrawlJobStatusService,
    private readonly extracts: FirecrawlExtractService,
    private readonly maps: FirecrawlMapAndTeamService,
  ) {}

  @Post('crawl')
  @HttpCode(200)
  crawl(@CurrentCaller() caller: Caller, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.starts.crawl(caller, body, String(request.id), request);
  }

  @Post('crawl/params-preview')
  @HttpCode(200)
  paramsPreview(@Body() body: unknown) {
    return this.starts.paramsPreview(body);
  }

  @Get('crawl/active')
  active(@CurrentCaller() caller: Caller) {
    return this.starts.active(caller);
  }

  @Get('crawl/ongoing')
  ongoing(@CurrentCaller() caller: Caller) {
    return this.starts.active(caller);
  }

  /** Also the watcher: a WebSocket upgrade of this path is served by @fastify/websocket (create-app.ts). */
  @Get('crawl/:id')
  crawlStatus(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: unknown, @Req() request: FastifyRequest) {
    return this.statuses.status(caller, 'crawl', id, query, request);
  }

  /** A crawl's and a batch's cancel and errors are the same reads of the job (its type aside). */
  @Delete(['crawl/:id', 'batch/scrape/:id'])
  cancel(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.statuses.cancel(caller, id);
  }

  @Get(['crawl/:id/errors', 'batch/scrape/:id/errors'])
  errors(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.statuses.errors(caller, id);
  }

  @Post('batch/scrape')
  @HttpCode(200)
  batch(@CurrentCaller() caller: Caller, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.starts.batch(caller, body, String(request.id), request);
  }

  @Get('batch/scrape/:id')
  batchStatus(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: unknown, @Req() request: FastifyRequest) {
    return this.statuses.status(caller, 'batch', id, query, request);
  }

  @Post('map')
  @HttpCode(200)
  map(@Body() body: unknown) {
    return this.maps.map(body);
  }

  @Post('extract')
  @HttpCode(200)
  extract(@CurrentCaller() caller: Caller, @Body() body: unknown, @Req() request: FastifyRequest) {
    return this.extracts.start(caller, body, String(request.id), request);
  }

  @Get('extract/:id')
  extractStatus(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.extracts.status(caller, id);
  }
}

/** Usage and queue reads, from Gleaner's own usage report and jobs (scope `jobs`, as GET /api/v1/usage). */
@ApiExcludeController()
@Controller('v2')
@RequiresScope('jobs')
export class FirecrawlTeamController {
  constructor(private readonly team: FirecrawlMapAndTeamService) {}

  @Get('team/credit-usage')
  creditUsage(@CurrentCaller() caller: Caller) {
    return this.team.creditUsage(caller);
  }

  @Get('team/credit-usage/historical')
  creditHistory(@CurrentCaller() caller: Caller, @Query() query: unknown) {
    return this.team.creditHistory(caller, query);
  }

  @Get('team/token-usage')
  tokenUsage(@CurrentCaller() caller: Caller) {
    return this.team.tokenUsage(caller);
  }

  @Get('team/token-usage/historical')
  tokenHistory(@CurrentCaller() caller: Caller, @Query() query: unknown) {
    return this.team.tokenHistory(caller, query);
  }

  @Get('team/queue-status')
  queueStatus(@CurrentCaller() caller: Caller) {
    return this.team.queueStatus(caller);
  }

  @Get('concurrency-check')
  concurrency(@CurrentCaller() caller: Caller) {
    return this.team.concurrency(caller);
  }
}
