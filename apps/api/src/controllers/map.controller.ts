import { Body, Controller, Headers, HttpCode, Post, Res } from '@nestjs/common';
import { ApiBearerAuth, ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags, getSchemaPath } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { MapRequestDto, MapResponse, MapService, MapUrl } from '@app/crawl';
import { ResultsService } from '@app/results';
import { ApiProblems } from '../openapi-constraints';
import { stream } from './results.controller';

@ApiTags('Crawl')
@ApiBearerAuth()
@Controller('api/v1')
@RequiresScope('crawl')
@ApiExtraModels(MapUrl, MapResponse)
export class MapController {
  constructor(
    private readonly maps: MapService,
    private readonly results: ResultsService,
  ) {}

  @Post('map')
  @HttpCode(200)
  @ApiProblems(502)
  @ApiOperation({
    summary: "A site's URLs, fast: its sitemaps and the seed page's links, nothing extracted",
    description:
      "Reads robots.txt `Sitemap:` lines, `/sitemap.xml` (indexes and gzip followed) and the seed page's links; keeps URLs on the seed's host (its registrable domain with `include_subdomains`) that robots.txt allows, canonical and deduplicated as a crawl does; ranks them by `search`. " +
      'Answers within GLEANER_MAP_TIME_BUDGET_MS (default 20 s) with what it found (`complete: false` when cut short). JSON, or JSON lines (one URL object per line; totals in the `x-map-complete`, `x-map-count`, `x-map-found` headers) with `Accept: application/x-ndjson`. ' +
      '502 when the seed page cannot be read and no sitemap was asked for (`auth_failed` when its auth profile cannot log in or the page stays logged out); a forbidden address, or an `auth_profile` that is not one of yours, is a 422.',
  })
  @ApiOkResponse({
    description: 'The map.',
    content: {
      'application/json': { schema: { $ref: getSchemaPath(MapResponse) } },
      'application/x-ndjson': {
        schema: { $ref: getSchemaPath(MapUrl) },
        example: '{"url":"https://shop.example/","source":"seed","text":null}\n',
      },
    },
  })
  async map(
    @CurrentCaller() caller: Caller,
    @Body() dto: MapRequestDto,
    @Headers('accept') accept: string | undefined,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { headers, body } = await this.maps.map(dto, accept, caller);
    await stream(this.results, reply, body, headers);
  }
}
