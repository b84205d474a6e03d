import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/auth';
import { DownloadFileQuery, ResultsService } from '@app/results';
import { RESULT_TYPES, stream } from './results.controller';
import { ApiProblems } from '../openapi-constraints';

/** Signed download links: no bearer key, the signature is the credential (403 when tampered or expired). */
@ApiTags('Jobs')
@Controller('api/v1/downloads')
export class DownloadsController {
  constructor(private readonly results: ResultsService) {}

  @Get(':id')
  @Public()
  @ApiProblems(403, 404, 406, 409, 422)
  @ApiOperation({ summary: 'Download a results file through a signed link from GET /api/v1/jobs/{id}/download' })
  @ApiProduces(...RESULT_TYPES)
  @ApiOkResponse({ description: 'The results file (Content-Disposition: attachment), as GET /api/v1/jobs/{id}/results would serve it' })
  async file(@Param('id') id: string, @Query() query: DownloadFileQuery, @Res() reply: FastifyReply): Promise<void> {
    const body = await this.results.openDownload(id, query);
    await stream(this.results, reply, body, { 'content-disposition': `attachment; filename="${body.filename}"` });
  }
}
