import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/auth';
import { DownloadFileQuery, ResultsService, ScreenshotFileQuery, ScreenshotsService } from '@app/results';
import { RESULT_TYPES, stream } from './results.controller';
import { ApiProblems } from '../openapi-constraints';

/** Signed download links: no bearer key, the signature is the credential (403 when tampered or expired). */
@ApiTags('Jobs')
@Controller('api/v1/downloads')
export class DownloadsController {
  constructor(
    private readonly results: ResultsService,
    private readonly screenshots: ScreenshotsService,
  ) {}

  @Get('screenshots/:id')
  @Public()
  @ApiProblems(403, 404)
  @ApiOperation({ summary: "Download a scrape page's screenshot through the signed link of its answer (`metadata.screenshot_url`)" })
  @ApiProduces('image/png')
  @ApiOkResponse({ description: 'The PNG', schema: { type: 'string', format: 'binary' } })
  async screenshot(@Param('id') id: string, @Query() query: ScreenshotFileQuery, @Res() reply: FastifyReply): Promise<void> {
    const png = await this.screenshots.readSigned(id, query);
    await reply.header('content-type', 'image/png').header('cache-control', 'private, no-store').send(png);
  }

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
