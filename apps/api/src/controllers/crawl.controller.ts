import { Body, Controller, Get, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import {
  CrawlMapQuery,
  CrawlMapResponse,
  CrawlMapService,
  CrawlQuery,
  CrawlRequestDto,
  CrawlRequestsService,
  CrawlResultResponse,
} from '@app/crawl';
import { ResultsService } from '@app/results';
import { stream } from './results.controller';
import { Idempotent } from '../idempotency.interceptor';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('Crawl')
@ApiBearerAuth()
@Controller('api/v1')
@RequiresScope('crawl')
export class CrawlController {
  constructor(private readonly crawls: CrawlRequestsService) {}

  @Post('crawl')
  @Idempotent()
  @ApiProblems(409, 502, 504)
  @ApiOperation({
    summary: 'Crawl from a seed URL, extracting every page',
    description:
      'Starts a crawl job (202, Location = the job). With wait=true the call blocks up to `timeout` seconds: 200 with the merged items when the crawl ended, else 202.',
  })
  @ApiAcceptedResponse({ type: CrawlResultResponse })
  @ApiOkResponse({ type: CrawlResultResponse, description: 'wait=true and the crawl ended in time.' })
  async crawl(
    @CurrentCaller() caller: Caller,
    @Body() dto: CrawlRequestDto,
    @Query() query: CrawlQuery,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const answer = await this.crawls.start(caller, dto, query, String(request.id), request);
    void reply.status(answer.status).header('location', answer.location);
    return answer.body;
  }
}

@ApiTags('Jobs')
@ApiBearerAuth()
@Controller('api/v1/jobs')
@RequiresScope('jobs')
export class CrawlMapController {
  constructor(
    private readonly maps: CrawlMapService,
    private readonly results: ResultsService,
  ) {}

  @Get(':id/crawl-map')
  @ApiProblems(409)
  @ApiOperation({
    summary: "A crawl's map: every URL it met, with status, depth, parent, timings, tokens and errors",
    description:
      'Without limit/offset/status the whole map is streamed; with them, `entries` is that page (limit ≤ 1000). Totals and error_summary always cover the whole crawl.',
  })
  @ApiOkResponse({ type: CrawlMapResponse })
  async crawlMap(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Query() query: CrawlMapQuery,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await stream(this.results, reply, await this.maps.map(caller, id, query));
  }
}
