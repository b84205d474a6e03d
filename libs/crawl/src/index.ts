// The crawl lib's entry point: what the apps use. The parts of the crawl owner (owner/), the page worker
// (worker/) and the repository are internal; tests import them by path.
export { CrawlModule } from './api/crawl.module';
export { CrawlRequestsService } from './api/crawl-requests.service';
export { CrawlMapService } from './api/crawl-map.service';
export { CrawlMapQuery, CrawlMapResponse, CrawlQuery, CrawlRequestDto, CrawlResultResponse } from './api/dto/crawl-request.dto';
export { CrawlWorkerModule } from './crawl-worker.module';
export { CrawlJobHandler } from './owner/crawl-job.handler';
