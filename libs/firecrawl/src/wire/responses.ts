import { z } from 'zod';

/**
 * The answers of /v2 as zod schemas: the /v2 OpenAPI document's response schemas, what the e2e suites check
 * every answer against, and (through the types below) what the services are declared to return. Their shapes
 * follow the SDK's types (Document, CrawlJob, CrawlErrorsResponse, MapData, ExtractResponse, Monitor,
 * MonitorCheck, CreditUsage, ...): sdk-contract.spec.ts assigns each answer type to the SDK type its method
 * reads, so a drift on either side is a compile error (`npm run typecheck`).
 */

export const errorBodySchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.string().optional(),
  details: z.unknown().optional(),
});

export const documentMetadataSchema = z.looseObject({
  sourceURL: z.string(),
  url: z.string(),
  statusCode: z.number(),
  scrapeId: z.string(),
  creditsUsed: z.number(),
  proxyUsed: z.literal('basic'),
  cacheState: z.enum(['hit', 'miss']),
  cachedAt: z.string().optional(),
  contentType: z.string().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  language: z.string().optional(),
  numPages: z.number().optional(),
  /** A crawl or batch page: the Gleaner result id. */
  pageId: z.string().optional(),
});

/** changeTracking (docs/firecrawl.md "Change tracking"): this page against the tenant's previous archived copy. */
export const changeTrackingSchema = z.object({
  previousScrapeAt: z.string().nullable(),
  changeStatus: z.enum(['new', 'same', 'changed', 'removed']),
  visibility: z.enum(['visible', 'hidden']),
  diff: z.object({ text: z.string() }).optional(),
  json: z.record(z.string(), z.object({ previous: z.unknown(), current: z.unknown() })).optional(),
});

export const documentSchema = z.looseObject({
  markdown: z.string().optional(),
  html: z.string().optional(),
  rawHtml: z.string().optional(),
  json: z.unknown().optional(),
  summary: z.string().optional(),
  links: z.array(z.string()).optional(),
  images: z.array(z.string()).optional(),
  screenshot: z.string().optional(),
  changeTracking: changeTrackingSchema.optional(),
  warning: z.string().optional(),
  metadata: documentMetadataSchema,
});

export const scrapeResponseSchema = z.object({ success: z.literal(true), data: documentSchema });

export const jobStartedSchema = z.object({
  success: z.literal(true),
  id: z.string(),
  url: z.string(),
  invalidURLs: z.array(z.string()).optional(),
});

export const jobStatusSchema = z.object({
  success: z.literal(true),
  status: z.enum(['scraping', 'completed', 'failed', 'cancelled']),
  completed: z.number().int(),
  total: z.number().int(),
  creditsUsed: z.number(),
  next: z.string().nullable(),
  data: z.array(documentSchema),
  error: z.string().optional(),
});

export const cancelledSchema = z.object({ success: z.literal(true), status: z.literal('cancelled') });

export const errorsResponseSchema = z.object({
  success: z.literal(true),
  errors: z.array(
    z.object({ id: z.string(), timestamp: z.string().optional(), url: z.string(), code: z.string().optional(), error: z.string() }),
  ),
  robotsBlocked: z.array(z.string()),
});

export const activeCrawlsSchema = z.object({
  success: z.literal(true),
  crawls: z.array(z.object({ id: z.string(), teamId: z.string(), url: z.string(), options: z.record(z.string(), z.unknown()).nullable() })),
});

export const paramsPreviewSchema = z.object({
  success: z.literal(true),
  data: z.record(z.string(), z.unknown()),
  warning: z.string().optional(),
});

export const mapResponseSchema = z.object({
  success: z.literal(true),
  links: z.array(z.object({ url: z.string(), title: z.string().optional(), description: z.string().optional() })),
  warning: z.string().optional(),
});

export const extractStartedSchema = z.object({ success: z.literal(true), id: z.string(), invalidURLs: z.array(z.string()).optional() });

export const extractStatusSchema = z.object({
  success: z.literal(true),
  id: z.string(),
  status: z.enum(['processing', 'completed', 'failed', 'cancelled']),
  data: z.unknown(),
  creditsUsed: z.number(),
  tokensUsed: z.number(),
  error: z.string().optional(),
  warning: z.string().optional(),
});

const summarySchema = z.object({
  totalPages: z.number(),
  same: z.number(),
  changed: z.number(),
  new: z.number(),
  removed: z.number(),
  error: z.number(),
});

/** What a Gleaner monitor compares: a json format with its schema. */
const monitorScrapeOptions = z.object({
  formats: z.array(z.object({ type: z.literal('json'), schema: z.record(z.string(), z.unknown()) })),
});

export const monitorSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'paused']),
  schedule: z.object({ cron: z.string().optional(), text: z.string().optional(), timezone: z.string().optional() }),
  nextRunAt: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  currentCheckId: z.string().nullable(),
  targets: z.array(
    z.union([
      z.object({ id: z.string(), type: z.literal('scrape'), urls: z.array(z.string()), scrapeOptions: monitorScrapeOptions }),
      z.object({ id: z.string(), type: z.literal('crawl'), url: z.string(), scrapeOptions: monitorScrapeOptions }),
    ]),
  ),
  webhook: z.null(),
  notification: z.null(),
  retentionDays: z.number(),
  estimatedCreditsPerMonth: z.null(),
  lastCheckSummary: summarySchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const checkSchema = z.looseObject({
  id: z.string(),
  monitorId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'skipped_overlap']),
  trigger: z.enum(['scheduled', 'manual']),
  scheduledFor: z.string().nullable(),
  startedAt: z.string().nullable(),
  finishedAt: z.string().nullable(),
  billingStatus: z.literal('not_applicable'),
  summary: summarySchema,
  targetResults: z.array(
    z.union([
      z.object({ targetId: z.string(), type: z.literal('scrape'), expectedJobs: z.array(z.string()) }),
      z.object({ targetId: z.string(), type: z.literal('crawl'), crawlId: z.string().optional() }),
    ]),
  ),
  error: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const checkPageSchema = z.looseObject({
  id: z.string(),
  targetId: z.string(),
  url: z.string(),
  status: z.enum(['same', 'new', 'changed', 'removed', 'error']),
  diff: z.object({ json: z.record(z.string(), z.object({ previous: z.unknown(), current: z.unknown() })) }).nullable(),
  /** The record's key fields (the monitor's `key`), by which the change was matched. */
  metadata: z.object({ key: z.record(z.string(), z.unknown()) }),
  createdAt: z.string(),
});

export const monitorResponseSchema = z.object({ success: z.literal(true), data: monitorSchema });
export const monitorListSchema = z.object({ success: z.literal(true), data: z.array(monitorSchema) });
export const monitorDeletedSchema = z.object({ success: z.literal(true), data: z.object({ id: z.string() }) });
export const checkResponseSchema = z.object({ success: z.literal(true), data: checkSchema });
export const checkListSchema = z.object({ success: z.literal(true), data: z.array(checkSchema) });
export const checkDetailSchema = z.object({
  success: z.literal(true),
  data: checkSchema.extend({ pages: z.array(checkPageSchema), next: z.string().nullable() }),
  next: z.string().nullable(),
});

export const creditUsageSchema = z.object({
  success: z.literal(true),
  data: z.object({
    remainingCredits: z.number(),
    planCredits: z.number(),
    creditsUsed: z.number(),
    billingPeriodStart: z.string().nullable(),
    billingPeriodEnd: z.string().nullable(),
  }),
});

export const tokenUsageSchema = z.object({
  success: z.literal(true),
  data: z.object({
    remainingTokens: z.number(),
    planTokens: z.number(),
    tokensUsed: z.number(),
    billingPeriodStart: z.string().nullable(),
    billingPeriodEnd: z.string().nullable(),
  }),
});

const period = { startDate: z.string().nullable(), endDate: z.string().nullable() };
export const creditHistorySchema = z.object({
  success: z.literal(true),
  periods: z.array(z.object({ ...period, creditsUsed: z.number() })),
});
export const tokenHistorySchema = z.object({
  success: z.literal(true),
  periods: z.array(z.object({ ...period, tokensUsed: z.number() })),
});

export const queueStatusSchema = z.object({
  success: z.literal(true),
  jobsInQueue: z.number(),
  activeJobsInQueue: z.number(),
  waitingJobsInQueue: z.number(),
  maxConcurrency: z.number(),
  mostRecentSuccess: z.string().nullable(),
});

export const concurrencySchema = z.object({
  success: z.literal(true),
  data: z.object({ concurrency: z.number(), maxConcurrency: z.number() }),
});

/** The watcher's messages (WebSocket /v2/crawl/{id}): what the SDK's Watcher reads. */
export const jobSnapshotSchema = jobStatusSchema.omit({ next: true });
export const watcherMessageSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('catchup'), data: jobSnapshotSchema }),
  z.object({ type: z.literal('document'), data: documentSchema }),
  z.object({ type: z.literal('done'), data: jobSnapshotSchema }),
  z.object({ type: z.literal('status'), data: jobSnapshotSchema }),
  z.object({ type: z.literal('error'), error: z.string() }),
]);

// The answer types the services are declared to return: a service cannot drift from the document.
export type FirecrawlErrorAnswer = z.output<typeof errorBodySchema>;
export type FirecrawlDocument = z.output<typeof documentSchema>;
export type DocumentMetadata = z.output<typeof documentMetadataSchema>;
export type ChangeTracking = z.output<typeof changeTrackingSchema>;
export type ScrapeResponse = z.output<typeof scrapeResponseSchema>;
export type JobStartedResponse = z.output<typeof jobStartedSchema>;
export type JobStatusResponse = z.output<typeof jobStatusSchema>;
export type JobSnapshot = z.output<typeof jobSnapshotSchema>;
export type CancelledResponse = z.output<typeof cancelledSchema>;
export type ErrorsResponse = z.output<typeof errorsResponseSchema>;
export type ActiveCrawlsResponse = z.output<typeof activeCrawlsSchema>;
export type ParamsPreviewResponse = z.output<typeof paramsPreviewSchema>;
export type MapResponse = z.output<typeof mapResponseSchema>;
export type ExtractStartedResponse = z.output<typeof extractStartedSchema>;
export type ExtractStatusResponse = z.output<typeof extractStatusSchema>;
export type FirecrawlMonitor = z.output<typeof monitorSchema>;
export type FirecrawlCheck = z.output<typeof checkSchema>;
export type FirecrawlCheckPage = z.output<typeof checkPageSchema>;
export type MonitorResponse = z.output<typeof monitorResponseSchema>;
export type MonitorListResponse = z.output<typeof monitorListSchema>;
export type MonitorDeletedResponse = z.output<typeof monitorDeletedSchema>;
export type CheckResponse = z.output<typeof checkResponseSchema>;
export type CheckListResponse = z.output<typeof checkListSchema>;
export type CheckDetailResponse = z.output<typeof checkDetailSchema>;
export type CreditUsageResponse = z.output<typeof creditUsageSchema>;
export type TokenUsageResponse = z.output<typeof tokenUsageSchema>;
export type CreditHistoryResponse = z.output<typeof creditHistorySchema>;
export type TokenHistoryResponse = z.output<typeof tokenHistorySchema>;
export type QueueStatusResponse = z.output<typeof queueStatusSchema>;
export type ConcurrencyResponse = z.output<typeof concurrencySchema>;
export type WatcherMessage = z.output<typeof watcherMessageSchema>;
