import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { ScrapeRequestDto, ScrapeRequestsService, ScrapeResponse } from '@app/scrape';
import { Idempotent } from '../idempotency.interceptor';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('Extraction')
@ApiBearerAuth()
@Controller('api/v1')
@RequiresScope('extract')
export class ScrapeController {
  constructor(private readonly requests: ScrapeRequestsService) {}

  @Post('scrape')
  @Idempotent()
  @ApiProblems(409, 502, 504)
  @HttpCode(200)
  @ApiOperation({
    summary: 'One page as markdown, text, HTML, links, page info or a screenshot (no schema, no model, no cost)',
    description:
      'Runs as a job on a crawler worker and answers when it completes; 504 with the job id when it takes longer (the job goes on). docs/scrape.md describes every format and option.',
  })
  @ApiOkResponse({ type: ScrapeResponse })
  scrape(@CurrentCaller() caller: Caller, @Body() dto: ScrapeRequestDto, @Req() request: FastifyRequest) {
    return this.requests.scrape(caller, dto, String(request.id), request);
  }
}
