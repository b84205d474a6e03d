import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { EXIT_CONFIG, loadConfigOrReport } from '@app/config';
import { createLogger, Metrics, PinoNestLogger } from '@app/observability';
import { installShutdown, openPorts } from '@app/platform';
import type { AppExtensions } from '@app/worker';
import { CrawlerModule } from './crawler.module';

/**
 * The cluster crawler role: consumes jobs; serves /health, /ready and /metrics on CRAWLER_PORT.
 * `extensions` only from the test apps (test/test-app), which start the built app through this function.
 */
export async function main(extensions?: AppExtensions): Promise<void> {
  const config = loadConfigOrReport(process.env, 'crawler', process.stderr);
  if (!config) process.exit(EXIT_CONFIG);
  const logger = createLogger({ level: config.logLevel, name: 'gleaner-crawler' });
  const metrics = new Metrics('crawler');
  const ports = await openPorts(config);
  const app = await NestFactory.create<NestFastifyApplication>(
    CrawlerModule.forRoot(config, ports, logger, metrics, extensions),
    new FastifyAdapter(),
    {
      logger: new PinoNestLogger(logger),
    },
  );
  await app.listen({ port: config.crawlerPort, host: config.host });
  logger.info({ port: config.crawlerPort }, 'Gleaner crawler running');
  installShutdown(app, logger);
}

if (require.main === module) void main();
