import { Module, type DynamicModule, type Type } from '@nestjs/common';
import { APP_FILTER, APP_GUARD } from '@nestjs/core';
import { AuthGuard, AuthModule, TenantDeletionModule } from '@app/auth';
import type { AppConfig } from '@app/config';
import { JobsModule } from '@app/jobs';
import { LlmModule } from '@app/llm';
import type { AppLogger, Metrics } from '@app/observability';
import { PlatformModule, type PlatformPorts } from '@app/platform';
import { WorkerModule, type AppExtensions } from '@app/worker';
import { JobsController } from './controllers/jobs.controller';
import { KeysController } from './controllers/keys.controller';
import { LlmController } from './controllers/llm.controller';
import { OpsController } from './controllers/ops.controller';
import { UsersController } from './controllers/users.controller';
import { ProblemFilter } from './problem.filter';
import { ExtractionModule } from '@app/extraction';
import { IntakeModule } from '@app/intake';
import { CrawlModule } from '@app/crawl';
import { ArchiveController } from './controllers/archive.controller';
import { BatchController } from './controllers/batch.controller';
import { MapController } from './controllers/map.controller';
import { CrawlController, CrawlMapController } from './controllers/crawl.controller';
import { ExtractionController } from './controllers/extraction.controller';
import { SavedSchemasModule } from '@app/saved-schemas';
import { SitesModule } from '@app/sites';
import { AuthProfilesModule } from '@app/auth-profiles';
import { WebhooksModule } from '@app/webhooks';
import { SitesController } from './controllers/sites.controller';
import { AuthProfilesController } from './controllers/auth-profiles.controller';
import { SchemasController } from './controllers/schemas.controller';
import { WebhooksController } from './controllers/webhooks.controller';
import { JobWebhooksController } from './controllers/job-webhooks.controller';
import { UsageController } from './controllers/usage.controller';
import { ResultsModule } from '@app/results';
import { ResultsController } from './controllers/results.controller';
import { DownloadsController } from './controllers/downloads.controller';
import { LearnedProgramsController } from './controllers/learned-programs.controller';
import { ScrapeModule } from '@app/scrape';
import { ScrapeController } from './controllers/scrape.controller';
import { McpController } from './controllers/mcp.controller';
import { MonitorsModule } from '@app/monitors';
import { MonitorsController } from './controllers/monitors.controller';
import { FirecrawlModule } from '@app/firecrawl';
import { FirecrawlCrawlController, FirecrawlScrapeController, FirecrawlTeamController } from './controllers/firecrawl.controller';
import { FirecrawlMonitorsController } from './controllers/firecrawl-monitors.controller';
import { FirecrawlUnsupportedController } from './controllers/firecrawl-unsupported.controller';

/** The API's controllers. */
export function apiControllers(): Type[] {
  return [
    OpsController,
    KeysController,
    UsersController,
    JobsController,
    SitesController,
    AuthProfilesController,
    SchemasController,
    WebhooksController,
    JobWebhooksController,
    UsageController,
    LlmController,
    ResultsController,
    DownloadsController,
    ExtractionController,
    ScrapeController,
    CrawlController,
    CrawlMapController,
    BatchController,
    MapController,
    LearnedProgramsController,
    MonitorsController,
    ArchiveController,
    McpController,
  ];
}

/** The Firecrawl-compatible API's controllers (/v2, docs/firecrawl.md): not in /api/v1/openapi.json, which covers apiControllers(). */
export function firecrawlControllers(): Type[] {
  return [
    FirecrawlScrapeController,
    FirecrawlCrawlController,
    FirecrawlTeamController,
    FirecrawlMonitorsController,
    FirecrawlUnsupportedController,
  ];
}

@Module({})
export class ApiModule {
  static forRoot(
    config: AppConfig,
    ports: PlatformPorts,
    logger: AppLogger,
    metrics: Metrics,
    extensions: AppExtensions = {},
  ): DynamicModule {
    // One MonitorsModule for the app (its scheduler runs once): Gleaner's own routes and /v2 share it.
    const monitors = MonitorsModule.register(CrawlModule);
    return {
      module: ApiModule,
      imports: [
        PlatformModule.forRoot(config, ports, logger, metrics),
        AuthModule,
        JobsModule,
        SavedSchemasModule,
        SitesModule,
        AuthProfilesModule,
        WebhooksModule,
        // resource modules
        LlmModule, // llm modules
        ResultsModule, // results modules
        IntakeModule,
        ExtractionModule, // extraction modules
        ScrapeModule,
        CrawlModule,
        monitors,
        FirecrawlModule.register(monitors),
        // Finishes tenant deletions that stopped half way (here every lib registered its tenant eraser).
        TenantDeletionModule,
        // Embedded mode: the crawler side runs in this same process.
        ...(config.role === 'all' ? [WorkerModule.forRoot({ jobHandlers: extensions.jobHandlers })] : []),
        ...(extensions.modules ?? []),
      ],
      controllers: [...apiControllers(), ...firecrawlControllers()],
      providers: [
        { provide: APP_GUARD, useClass: AuthGuard },
        { provide: APP_FILTER, useClass: ProblemFilter },
      ],
    };
  }
}
