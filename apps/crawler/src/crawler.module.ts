import { Controller, Get, Inject, Module, Res, type DynamicModule } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { METRICS, Metrics, type AppLogger } from '@app/observability';
import { checkReadiness, PlatformModule, type PlatformPorts } from '@app/platform';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { QUEUE, type QueuePort } from '@app/queue';
import { WorkerModule, type AppExtensions } from '@app/worker';

/** The crawler's own operational port: /health, /ready and /metrics (no API, no auth). */
@Controller()
class CrawlerOpsController {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(METRICS) private readonly metrics: Metrics,
    @Inject(DOCUMENT_STORE) private readonly store: DocumentStore,
    @Inject(QUEUE) private readonly queue: QueuePort,
  ) {}

  @Get('health')
  health() {
    return { status: 'ok', version: this.config.version, role: 'crawler' };
  }

  @Get('ready')
  async ready() {
    return { status: 'ready', ...(await checkReadiness(this.store, this.queue)) };
  }

  @Get('metrics')
  async metricsText(@Res() reply: FastifyReply) {
    void reply.header('content-type', this.metrics.registry.contentType).send(await this.metrics.render());
  }
}

@Module({})
export class CrawlerModule {
  static forRoot(
    config: AppConfig,
    ports: PlatformPorts,
    logger: AppLogger,
    metrics: Metrics,
    extensions: AppExtensions = {},
  ): DynamicModule {
    return {
      module: CrawlerModule,
      imports: [
        PlatformModule.forRoot(config, ports, logger, metrics),
        WorkerModule.forRoot({ jobHandlers: extensions.jobHandlers }),
        ...(extensions.modules ?? []),
      ],
      controllers: [CrawlerOpsController],
    };
  }
}
