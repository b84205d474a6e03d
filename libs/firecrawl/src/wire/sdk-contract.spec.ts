/**
 * The contract with Firecrawl's SDK (@mendable/firecrawl-js, the pinned dev dependency): for every /v2
 * operation, the answer type the service is declared to return (wire/responses.ts, the same zod schemas as
 * /v2/openapi.json) is assigned to the SDK type of what its method reads from that answer. The checks are
 * types: `npm run typecheck` fails when an answer drifts from the SDK's types or an SDK upgrade changes them.
 * The test below fails when an operation has no check.
 */
import type {
  ActiveCrawlsResponse as SdkActiveCrawls,
  BatchScrapeJob,
  BatchScrapeResponse,
  ConcurrencyCheck,
  CrawlErrorsResponse,
  CrawlJob,
  CrawlResponse,
  CreditUsage,
  CreditUsageHistoricalResponse,
  Document,
  ExtractResponse,
  MapData,
  Monitor,
  MonitorCheck,
  MonitorCheckDetail,
  QueueStatusResponse as SdkQueueStatus,
  TokenUsage,
  TokenUsageHistoricalResponse,
} from '@mendable/firecrawl-js';
import { OPERATIONS } from '../openapi/document';
import type {
  ActiveCrawlsResponse,
  CancelledResponse,
  CheckDetailResponse,
  CheckListResponse,
  CheckResponse,
  ConcurrencyResponse,
  CreditHistoryResponse,
  CreditUsageResponse,
  ErrorsResponse,
  ExtractStartedResponse,
  ExtractStatusResponse,
  FirecrawlErrorAnswer,
  JobStartedResponse,
  JobStatusResponse,
  MapResponse,
  MonitorDeletedResponse,
  MonitorListResponse,
  MonitorResponse,
  ParamsPreviewResponse,
  QueueStatusResponse,
  ScrapeResponse,
  TokenHistoryResponse,
  TokenUsageResponse,
  WatcherMessage,
} from './responses';

/** Compiles only when `_Answer` can be used where the SDK expects `Sdk`. */
function fits<_Answer extends Sdk, Sdk>(): true {
  return true;
}

/** What the SDK builds a job (CrawlJob, BatchScrapeJob) from: the status answer's fields and the id it asked for. */
type JobFromStatus = { id: string } & Pick<JobStatusResponse, 'status' | 'completed' | 'total' | 'creditsUsed' | 'next' | 'data'>;
type WatcherPayload<T extends WatcherMessage['type']> = Extract<WatcherMessage, { type: T }>;

/** Per operation (`method path` as in OPERATIONS): the check of what its SDK method reads. */
const CHECKS: Record<string, true> = {
  // scrape(): `res.data.data` is the Document.
  'post /v2/scrape': fits<ScrapeResponse['data'], Document>(),
  // startCrawl(): `{id, url}`; getCrawlStatus(): a CrawlJob from the status fields; the rest read as they are.
  'post /v2/crawl': fits<Pick<JobStartedResponse, 'id' | 'url'>, CrawlResponse>(),
  'get /v2/crawl/{id}': fits<JobFromStatus, CrawlJob>(),
  'delete /v2/crawl/{id}': fits<CancelledResponse['status'], 'cancelled'>(),
  'get /v2/crawl/{id}/errors': fits<Omit<ErrorsResponse, 'success'>, CrawlErrorsResponse>(),
  'get /v2/crawl/active': fits<ActiveCrawlsResponse, SdkActiveCrawls>(),
  'get /v2/crawl/ongoing': fits<ActiveCrawlsResponse, SdkActiveCrawls>(),
  // crawlParamsPreview(): `data` with `warning` added, as a record.
  'post /v2/crawl/params-preview': fits<ParamsPreviewResponse['data'] & { warning?: string }, Record<string, unknown>>(),
  // map(): `links` as {url, title, description}.
  'post /v2/map': fits<Pick<MapResponse, 'links'>, MapData>(),
  'post /v2/batch/scrape': fits<Pick<JobStartedResponse, 'id' | 'url' | 'invalidURLs'>, BatchScrapeResponse>(),
  'get /v2/batch/scrape/{id}': fits<JobFromStatus, BatchScrapeJob>(),
  'delete /v2/batch/scrape/{id}': fits<CancelledResponse['status'], 'cancelled'>(),
  'get /v2/batch/scrape/{id}/errors': fits<Omit<ErrorsResponse, 'success'>, CrawlErrorsResponse>(),
  // startExtract(), getExtractStatus(): the whole answer is the ExtractResponse.
  'post /v2/extract': fits<ExtractStartedResponse, ExtractResponse>(),
  'get /v2/extract/{id}': fits<ExtractStatusResponse, ExtractResponse>(),
  // The monitor methods: `res.data.data`.
  'post /v2/monitor': fits<MonitorResponse['data'], Monitor>(),
  'get /v2/monitor': fits<MonitorListResponse['data'], Monitor[]>(),
  'get /v2/monitor/{id}': fits<MonitorResponse['data'], Monitor>(),
  'patch /v2/monitor/{id}': fits<MonitorResponse['data'], Monitor>(),
  'delete /v2/monitor/{id}': fits<MonitorDeletedResponse['success'], boolean>(),
  'post /v2/monitor/{id}/run': fits<CheckResponse['data'], MonitorCheck>(),
  'get /v2/monitor/{id}/checks': fits<CheckListResponse['data'], MonitorCheck[]>(),
  'get /v2/monitor/{id}/checks/{checkId}': fits<CheckDetailResponse['data'], MonitorCheckDetail>(),
  // getCreditUsage(), getTokenUsage(): read from `data`; the histories, the queue status: the whole answer.
  'get /v2/team/credit-usage': fits<CreditUsageResponse['data'], CreditUsage>(),
  'get /v2/team/credit-usage/historical': fits<CreditHistoryResponse, CreditUsageHistoricalResponse>(),
  'get /v2/team/token-usage': fits<TokenUsageResponse['data'], TokenUsage>(),
  'get /v2/team/token-usage/historical': fits<TokenHistoryResponse, TokenUsageHistoricalResponse>(),
  'get /v2/team/queue-status': fits<QueueStatusResponse, SdkQueueStatus>(),
  'get /v2/concurrency-check': fits<ConcurrencyResponse['data'], ConcurrencyCheck>(),
};

/** The watcher's messages (read by the SDK's Watcher): documents, and job snapshots it builds a CrawlJob from. */
const WATCHER_CHECKS = [
  fits<WatcherPayload<'document'>['data'], Document>(),
  fits<{ id: string } & WatcherPayload<'catchup'>['data'] & { next: null }, CrawlJob>(),
  fits<{ id: string } & WatcherPayload<'done'>['data'] & { next: null }, CrawlJob>(),
  fits<WatcherPayload<'error'>['error'], string>(),
];

/** Errors: the SDK's SdkError takes `error` as its message, and `code` and `details` as they are. */
const ERROR_CHECK = fits<Pick<FirecrawlErrorAnswer, 'error' | 'code'>, { error: string; code?: string }>();

describe("the /v2 answers against the Firecrawl SDK's types", () => {
  it('has a compile-time check for every operation the document lists, and none for an operation it does not', () => {
    expect(Object.keys(CHECKS).sort()).toEqual(OPERATIONS.map((op) => `${op.method} ${op.path}`).sort());
    expect([...WATCHER_CHECKS, ERROR_CHECK].every(Boolean)).toBe(true);
  });
});
