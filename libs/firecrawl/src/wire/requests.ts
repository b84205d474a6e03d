import { z } from 'zod';
import { PRINTABLE_PATTERN } from '@app/http';
import { scrapeOptionsSchema, urlSchema, webhookSchema } from './scrape-options';

/**
 * The request bodies of /v2 besides scrape, as Firecrawl's SDKs send them (CrawlOptions, BatchScrapeOptions,
 * MapOptions, the extract arguments and the monitor requests of @mendable/firecrawl-js 4.42). Loose objects:
 * fields the SDKs add (`origin`, `integration`, `zeroDataRetention`, ...) and fields of newer SDKs are ignored.
 */

const pathPatterns = z.array(z.string().min(1).max(1000)).max(50);

export const crawlRequestSchema = z.looseObject({
  url: urlSchema,
  prompt: z.string().max(10_000).nullish(),
  excludePaths: pathPatterns.nullish(),
  includePaths: pathPatterns.nullish(),
  maxDiscoveryDepth: z.number().int().min(0).nullish(),
  sitemap: z.enum(['skip', 'include', 'only']).optional(),
  ignoreQueryParameters: z.boolean().optional(),
  deduplicateSimilarURLs: z.boolean().optional(),
  limit: z.number().int().min(1).nullish(),
  crawlEntireDomain: z.boolean().optional(),
  allowExternalLinks: z.boolean().optional(),
  allowSubdomains: z.boolean().optional(),
  ignoreRobotsTxt: z.boolean().optional(),
  robotsUserAgent: z.string().max(256).nullish(),
  delay: z.number().min(0).nullish(),
  maxConcurrency: z.number().int().min(1).nullish(),
  webhook: webhookSchema.nullish(),
  scrapeOptions: scrapeOptionsSchema.nullish(),
  regexOnFullURL: z.boolean().optional(),
});
export type CrawlRequest = z.infer<typeof crawlRequestSchema>;

/** POST /v2/crawl/params-preview. */
export const paramsPreviewRequestSchema = z.looseObject({ url: urlSchema, prompt: z.string().min(1).max(10_000) });

/** POST /v2/batch/scrape: the scrape options at the top level beside `urls` (the SDK spreads them there). */
export const batchScrapeRequestSchema = scrapeOptionsSchema.extend({
  urls: z.array(z.string().max(2048)).min(1).max(10_000),
  webhook: webhookSchema.nullish(),
  appendToId: z.string().max(64).nullish(),
  ignoreInvalidURLs: z.boolean().optional(),
  maxConcurrency: z.number().int().min(1).nullish(),
});
export type BatchScrapeRequest = z.infer<typeof batchScrapeRequestSchema>;

export const mapRequestSchema = z.looseObject({
  url: urlSchema,
  search: z.string().min(1).max(200).regex(PRINTABLE_PATTERN, { message: 'must not contain control characters' }).optional(),
  sitemap: z.enum(['only', 'include', 'skip']).optional(),
  includeSubdomains: z.boolean().optional(),
  ignoreQueryParameters: z.boolean().optional(),
  limit: z.number().int().min(1).max(100_000).optional(),
  timeout: z.number().int().positive().optional(),
  location: z.looseObject({}).optional(),
});
export type MapRequest = z.infer<typeof mapRequestSchema>;

export const extractRequestSchema = z.looseObject({
  urls: z.array(z.string().max(2048)).min(1).max(10_000).optional(),
  prompt: z.string().max(10_000).optional(),
  schema: z.record(z.string(), z.unknown()).optional(),
  systemPrompt: z.string().max(10_000).optional(),
  allowExternalLinks: z.boolean().optional(),
  enableWebSearch: z.boolean().optional(),
  showSources: z.boolean().optional(),
  ignoreInvalidURLs: z.boolean().optional(),
  scrapeOptions: scrapeOptionsSchema.optional(),
  webhook: webhookSchema.nullish(),
  agent: z.looseObject({}).optional(),
});
export type ExtractRequest = z.infer<typeof extractRequestSchema>;

const monitorScheduleSchema = z.looseObject({
  cron: z.string().min(1).max(200).optional(),
  text: z.string().min(1).max(200).optional(),
  timezone: z.string().min(1).max(64).optional(),
});

const monitorWebhookSchema = z.looseObject({
  url: urlSchema,
  headers: z.record(z.string(), z.string()).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  events: z.array(z.string().max(64)).max(20).optional(),
});

export const monitorTargetSchema = z.union([
  z.looseObject({
    id: z.string().max(64).optional(),
    type: z.literal('scrape'),
    urls: z.array(z.string().max(2048)).min(1).max(10_000),
    scrapeOptions: scrapeOptionsSchema.optional(),
  }),
  z.looseObject({
    id: z.string().max(64).optional(),
    type: z.literal('crawl'),
    url: urlSchema,
    crawlOptions: crawlRequestSchema.omit({ url: true }).optional(),
    scrapeOptions: scrapeOptionsSchema.optional(),
  }),
  z.looseObject({ id: z.string().max(64).optional(), type: z.literal('search'), queries: z.array(z.string().max(500)).max(20) }),
]);
export type MonitorTarget = z.infer<typeof monitorTargetSchema>;

const notificationSchema = z.looseObject({
  email: z.looseObject({ enabled: z.boolean().optional(), recipients: z.array(z.string().max(320)).max(50).optional() }).optional(),
});

/** A monitor's name, as Gleaner's monitors take it: printable text. */
const monitorNameSchema = z.string().min(1).max(200).regex(PRINTABLE_PATTERN, { message: 'must not contain control characters' });

export const createMonitorRequestSchema = z.looseObject({
  name: monitorNameSchema,
  schedule: monitorScheduleSchema,
  webhook: monitorWebhookSchema.optional(),
  notification: notificationSchema.optional(),
  targets: z.array(monitorTargetSchema).min(1).max(20),
  retentionDays: z.number().int().min(1).max(3650).optional(),
  goal: z.string().max(10_000).optional(),
  judgeEnabled: z.boolean().optional(),
});
export type CreateMonitorRequest = z.infer<typeof createMonitorRequestSchema>;

export const updateMonitorRequestSchema = z.looseObject({
  name: monitorNameSchema.optional(),
  status: z.enum(['active', 'paused']).optional(),
  schedule: monitorScheduleSchema.optional(),
  webhook: monitorWebhookSchema.nullish(),
  notification: notificationSchema.nullish(),
  targets: z.array(monitorTargetSchema).min(1).max(20).optional(),
  retentionDays: z.number().int().min(1).max(3650).optional(),
  goal: z.string().max(10_000).nullish(),
  judgeEnabled: z.boolean().optional(),
});
export type UpdateMonitorRequest = z.infer<typeof updateMonitorRequestSchema>;

/** Paging of status reads (`next` links carry `skip`; a client may also send `limit`). */
export const statusQuerySchema = z.looseObject({
  skip: z.coerce.number().int().min(0).max(10_000_000).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

export const listQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  offset: z.coerce.number().int().min(0).max(1_000_000).optional(),
});

export const checkQuerySchema = z.looseObject({
  limit: z.coerce.number().int().min(1).max(100).optional(),
  skip: z.coerce.number().int().min(0).max(1_000_000).optional(),
  status: z.enum(['same', 'new', 'changed', 'removed', 'error']).optional(),
});

export const historicalQuerySchema = z.looseObject({ byApiKey: z.enum(['true', 'false']).optional() });
