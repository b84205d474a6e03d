import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { AnalyzeRequestDto, ExtractionRequestsService, ExtractionResponse, ExtractRequestDto } from '@app/extraction';
import { Idempotent } from '../idempotency.interceptor';
import { ApiProblems } from '../openapi-constraints';

@ApiTags('Extraction')
@ApiBearerAuth()
@Controller('api/v1')
@RequiresScope('extract')
export class ExtractionController {
  constructor(private readonly requests: ExtractionRequestsService) {}

  @Post('extract')
  @Idempotent()
  @ApiProblems(409, 502, 504)
  @HttpCode(200)
  @ApiOperation({
    summary: 'Extract typed JSON from one page',
    description:
      'Runs as a job on a crawler worker and answers when it completes; 504 with the job id when it takes longer (the job goes on).',
  })
  @ApiOkResponse({ type: ExtractionResponse })
  extract(@CurrentCaller() caller: Caller, @Body() dto: ExtractRequestDto, @Req() request: FastifyRequest) {
    return this.requests.extract(caller, dto, String(request.id));
  }

  @Post('analyze')
  @Idempotent()
  @ApiProblems(409, 502, 504)
  @HttpCode(200)
  @ApiOperation({ summary: 'Analyze a page: type, repeated elements, follow patterns, fetch mode, suggested schema and sample data' })
  analyze(@CurrentCaller() caller: Caller, @Body() dto: AnalyzeRequestDto, @Req() request: FastifyRequest) {
    return this.requests.analyze(caller, dto, String(request.id));
  }
}
