import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentCaller, RequiresScope, type Caller } from '@app/auth';
import { FirecrawlMonitorsService } from '@app/firecrawl';

/** Firecrawl's monitors as Gleaner monitors (docs/firecrawl.md "Monitors"); scope `crawl`, as /api/v1/monitors. */
@ApiExcludeController()
@Controller('v2/monitor')
@RequiresScope('crawl')
export class FirecrawlMonitorsController {
  constructor(private readonly monitors: FirecrawlMonitorsService) {}

  @Post()
  @HttpCode(200)
  create(@CurrentCaller() caller: Caller, @Body() body: unknown) {
    return this.monitors.create(caller, body);
  }

  @Get()
  list(@CurrentCaller() caller: Caller, @Query() query: unknown) {
    return this.monitors.list(caller, query);
  }

  @Get(':id')
  get(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.monitors.get(caller, id);
  }

  @Patch(':id')
  update(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() body: unknown) {
    return this.monitors.update(caller, id, body);
  }

  @Delete(':id')
  remove(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.monitors.remove(caller, id);
  }

  @Post(':id/run')
  @HttpCode(200)
  run(@CurrentCaller() caller: Caller, @Param('id') id: string) {
    return this.monitors.run(caller, id);
  }

  @Get(':id/checks')
  checks(@CurrentCaller() caller: Caller, @Param('id') id: string, @Query() query: unknown) {
    return this.monitors.checks(caller, id, query);
  }

  @Get(':id/checks/:checkId')
  check(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('checkId') checkId: string,
    @Query() query: unknown,
    @Req() request: FastifyRequest,
  ) {
    return this.monitors.check(caller, id, checkId, query, request);
  }
}
