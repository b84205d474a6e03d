// The crawl lib's entry point: what the apps use. The parts of the crawl owner (owner/), the page worker
// (worker/) and the repository are internal; tests import them by path.
export { CrawlModule } from './api/crawl.module';
export { CrawlRequestsService } from './api/crawl-requests.service';
export { CrawlMapService } from './api/crawl-map.service';
export { BatchRequestsService } from './api/batch-requests.service';
export { BatchListQuery, BatchOptionsDto, BatchRequestDto, BatchResponse } from './api/dto/batch-request.dto';
export { CrawlMapQuery, CrawlMapResponse, CrawlQuery, CrawlRequestDto, CrawlResultResponse } from './api/dto/crawl-request.dto';
export { ReextractRequestsService } from './api/reextract-requests.service';
export { ArchivedPageService } from './api/archived-page.service';
export { WarcExportService } from './api/warc-export.service';
export { WarcRequestsService, WARC_MEDIA_TYPES } from './api/warc-requests.service';
export { ArchivedPageQuery, ReextractRequestDto, ReextractResponse, WarcExtractQuery, WarcExtractResponse } from './api/dto/archive.dto';
export { CrawlWorkerModule } from './crawl-worker.module';
export { CrawlJobHandler } from './owner/crawl-job.handler';
export { BatchJobHandler } from './owner/batch-job.handler';
export { ReextractJobHandler } from './owner/reextract-job.handler';
export { WarcExtractJobHandler } from './owner/warc-extract-job.handler';
export { MapService } from './map/map.service';
export { MapRequestDto, MapResponse, MapUrl } from './map/dto/map-request.dto';
export { canonicalize } from './url-canon';
