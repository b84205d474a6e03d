import { Controller, Get, Header, Inject, Param, Res } from '@nestjs/common';
import { ApiExcludeEndpoint, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { Public } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { Errors } from '@app/core';
import { problemPage } from '@app/http';
import { METRICS, Metrics } from '@app/observability';
import { checkReadiness } from '@app/platform';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { QUEUE, type QueuePort } from '@app/queue';

/** Unauthenticated operational endpoints (docs/operations.md "Health and metrics"). */
@ApiTags('Operations')
@Controller()
@Public()
export class OpsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(QUEUE) private readonly queue: QueuePort,
  ) {}

  @Get('health')
  @ApiOkResponse({ description: 'The process is alive.' })
  health() {
    return { status: 'ok', version: this.config.version, role: this.config.role, deployment: this.config.deployment };
  }

  @Get('api/v1/health')
  @ApiOkResponse({ description: 'Same as /health.' })
  apiHealth() {
    return this.health();
  }

  @Get('ready')
  @ApiOkResponse({ description: 'The store and the queue are reachable.' })
  async ready() {
    return { status: 'ready', ...(await checkReadiness(this.store, this.queue)) };
  }

  @Get('metrics')
  @ApiExcludeEndpoint()
  async metricsText(@Res() reply: FastifyReply) {
    const body = await this.metrics.render();
    void reply.header('content-type', this.metrics.registry.contentType).send(body);
  }

  @Get('problems/:slug')
  @Header('content-type', 'application/json')
  @ApiOkResponse({ description: 'A short human description of a problem type.' })
  problem(@Param('slug') slug: string) {
    const page = problemPage(slug);
    if (!page) throw Errors.notFound('Problem type');
    return page.body;
  }
}
