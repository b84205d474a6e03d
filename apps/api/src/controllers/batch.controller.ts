import { Body, Controller, HttpCode, Post, Query, Req, Res } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { BatchListQuery, BatchRequestDto, BatchRequestsService, BatchResponse } from '@app/crawl';
import { Idempotent } from '../idempotency.interceptor';
import { ApiListBody, ApiProblems } from '../openapi-constraints';

/** The path that also takes URL list bodies (text/plain, application/x-ndjson): create-app.ts lets them through here only. */
export const URL_LIST_ROUTES = ['/api/v1/batch/extract'];

@ApiTags('Crawl')
@ApiBearerAuth()
@Controller('api/v1')
@RequiresScope('crawl')
export class BatchController {
  constructor(private readonly batches: BatchRequestsService) {}

  @Post('batch/extract')
  @Idempotent()
  @HttpCode(202)
  @ApiListBody()
  @ApiProblems(409)
  @ApiOperation({
    summary: 'Extract every URL of a list (a batch job on the crawl engine)',
    description:
      "Starts a `batch` job (202, Location = the job) that extracts each URL once, with the crawl's politeness, page workers, retries, crawl map (`via: list`), results, events, webhooks, learned programs and cost cap; it follows no links. " +
      'Normalised duplicates are removed and reported; an invalid URL is a 422 at its index; a forbidden address fails as its own page. ' +
      "A JSON body takes up to 10,000 URLs (the body parser's 400 for longer arrays, 413 over GLEANER_BODY_LIMIT_BYTES). " +
      'Longer lists: a `text/plain` body (one URL per line, blank lines and `#` comments skipped) or `application/x-ndjson` (one JSON string or `{"url": ...}` per line), read as it streams, up to GLEANER_BATCH_MAX_URLS URLs, outside the JSON body limit, with the schema and options by saved ids in the query (`schema_id`, `site_id`, `extraction_mode`, `webhook_id`); a bad line is a 422 at `body.lines[<line>]`.',
  })
  @ApiAcceptedResponse({ type: BatchResponse })
  async batch(
    @CurrentCaller() caller: Caller,
    // Typed as the JSON DTO (what the pipe validates and the document shows); a list body arrives as a UrlListBody (the service takes both).
    @Body() body: BatchRequestDto,
    @Query() query: BatchListQuery,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const answer = await this.batches.start(caller, body, query, String(request.id), request);
    void reply.header('location', answer.location);
    return answer.body;
  }
}
