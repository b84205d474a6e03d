import { z } from 'zod';

/**
 * The answers of /v2 as zod schemas: the /v2 OpenAPI document's response schemas, and what the e2e suites check
 * every answer against. Their shapes follow the SDK's types (Document, CrawlJob, CrawlErrorsResponse, MapData,
 * ExtractResponse, Monitor, MonitorCheck, CreditUsage, ...); test/contract/firecrawl-shapes.spec.ts holds the
 * builders to those types at compile time.
 */

export const errorBodySchema = z.object({
  success: z.literal(false),
  error: z.string(),
  code: z.string().optional(),
  details: z.unknown().optional(),
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
  warning: z.string().optional(),
  metadata: z.looseObject({
    sourceURL: z.string(),
    url: z.string(),
    statusCode: z.number(),
    scrapeId: z.string(),
    creditsUsed: z.number(),
    title: z.string().optional(),
    description: z.string().optional(),
    language: z.string().optional(),
  }),
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
  crawls: z.array(z.object({ id: z.string(), teamId: z.string(), url: z.string(), options: z.unknown() })),
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

export const monitorSchema = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: z.enum(['active', 'paused']),
  schedule: z.looseObject({ cron: z.string().optional(), text: z.string().optional(), timezone: z.string().optional() }),
  nextRunAt: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  currentCheckId: z.string().nullable(),
  targets: z.array(z.looseObject({ id: z.string(), type: z.enum(['scrape', 'crawl']) })),
  retentionDays: z.number(),
  lastCheckSummary: summarySchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const checkSchema = z.looseObject({
  id: z.string(),
  monitorId: z.string(),
  status: z.enum(['queued', 'running', 'completed', 'failed', 'skipped_overlap']),
  trigger: z.enum(['scheduled', 'manual']),
  billingStatus: z.literal('not_applicable'),
  summary: summarySchema,
  targetResults: z.array(z.looseObject({ targetId: z.string(), type: z.string() })),
  createdAt: z.string(),
  updatedAt: z.string(),
});

export const checkPageSchema = z.looseObject({
  id: z.string(),
  targetId: z.string(),
  url: z.string(),
  status: z.enum(['same', 'new', 'changed', 'removed', 'error']),
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

const usageData = (what: 'Credits' | 'Tokens') =>
  z.object({
    success: z.literal(true),
    data: z.object({
      [`remaining${what}`]: z.number(),
      [`plan${what}`]: z.number(),
      [`${what.toLowerCase()}Used`]: z.number(),
      billingPeriodStart: z.string().nullable(),
      billingPeriodEnd: z.string().nullable(),
    }),
  });
export const creditUsageSchema = usageData('Credits');
export const tokenUsageSchema = usageData('Tokens');

export const historicalSchema = z.object({
  success: z.literal(true),
  periods: z.array(
    z.object({
      startDate: z.string().nullable(),
      endDate: z.string().nullable(),
      creditsUsed: z.number().optional(),
      tokensUsed: z.number().optional(),
    }),
  ),
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
