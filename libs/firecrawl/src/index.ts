// The Firecrawl-compatible API (docs/firecrawl.md): what apps/api's /v2 controllers and create-app use.
export { FirecrawlModule } from './firecrawl.module';
export { FirecrawlScrapeService } from './scrape.service';
export { FirecrawlJobStartsService } from './job-starts.service';
export { FirecrawlJobStatusService, type JobKind } from './job-status.service';
export { FirecrawlExtractService } from './extract.service';
export { FirecrawlMapAndTeamService } from './map-and-team.service';
export { FirecrawlMonitorsService } from './monitors.service';
export { FirecrawlWatcherService, keyOfUpgrade, type WatcherSocket } from './crawl-watcher.service';
export { firecrawlError, isNotSupportedRoute, routeNotSupported, FirecrawlError, type FirecrawlErrorBody } from './wire/errors';
export { buildFirecrawlOpenApi } from './openapi/document';
