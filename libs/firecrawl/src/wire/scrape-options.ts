import { z } from 'zod';

/**
 * Firecrawl's scrape options as its SDKs send them (`ScrapeOptions` of @mendable/firecrawl-js 4.42, the
 * contract; docs/firecrawl.md). One schema gives the validation of /v2 and its OpenAPI document. Objects are
 * loose on purpose: a field this server does not know (the SDKs add new ones between versions) is ignored,
 * never refused; the ones that would change the result and that Gleaner cannot honour are refused by name
 * (translate/formats.ts, translate/unsupported.ts).
 */

/** Formats Gleaner makes. The other names Firecrawl knows are refused with "not supported" (translate/formats.ts). */
export const SUPPORTED_FORMATS = [
  'markdown',
  'html',
  'rawHtml',
  'links',
  'images',
  'screenshot',
  'summary',
  'json',
  'changeTracking',
] as const;
export type SupportedFormat = (typeof SUPPORTED_FORMATS)[number];

/** Firecrawl's format names this server refuses (FormatString of the SDK, plus the older object formats). */
export const UNSUPPORTED_FORMATS = [
  'attributes',
  'branding',
  'product',
  'menu',
  'audio',
  'video',
  'question',
  'highlights',
  'query',
  'rawBase64',
] as const;

const jsonSchemaObject = z.record(z.string(), z.unknown()).describe('A JSON Schema object.');

export const jsonFormatSchema = z.looseObject({
  type: z.literal('json'),
  prompt: z.string().max(10_000).optional(),
  schema: jsonSchemaObject.optional(),
  checkPromptInjection: z.boolean().optional(),
});

export const screenshotFormatSchema = z.looseObject({
  type: z.literal('screenshot'),
  fullPage: z.boolean().optional(),
  quality: z.number().min(0).max(100).optional(),
  viewport: z.looseObject({ width: z.number().int().positive(), height: z.number().int().positive() }).optional(),
});

export const changeTrackingFormatSchema = z.looseObject({
  type: z.literal('changeTracking'),
  modes: z.array(z.enum(['git-diff', 'json'])).optional(),
  schema: jsonSchemaObject.optional(),
  prompt: z.string().max(10_000).optional(),
  tag: z.string().max(256).optional(),
});

/** Any other object format: `{type}` and whatever it carries (refused unless its type is supported). */
const otherFormatSchema = z.looseObject({ type: z.string().min(1).max(64) });

export const formatOptionSchema = z.union([
  z.string().min(1).max(64),
  jsonFormatSchema,
  screenshotFormatSchema,
  changeTrackingFormatSchema,
  otherFormatSchema,
]);
export type FormatOption = z.infer<typeof formatOptionSchema>;

const actionSchema = z.looseObject({ type: z.string().max(64) });

export const scrapeOptionsSchema = z.looseObject({
  formats: z.array(formatOptionSchema).max(32).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  includeTags: z.array(z.string().max(500)).max(100).optional(),
  excludeTags: z.array(z.string().max(500)).max(100).optional(),
  onlyMainContent: z.boolean().optional(),
  timeout: z.number().int().positive().max(600_000).optional(),
  waitFor: z.number().int().min(0).max(60_000).optional(),
  mobile: z.boolean().optional(),
  parsers: z
    .array(z.union([z.string().max(64), z.looseObject({ type: z.string().max(64) })]))
    .max(10)
    .optional(),
  actions: z.array(actionSchema).max(50).optional(),
  location: z.looseObject({ country: z.string().max(8).optional(), languages: z.array(z.string().max(35)).max(20).optional() }).optional(),
  skipTlsVerification: z.boolean().optional(),
  removeBase64Images: z.boolean().optional(),
  fastMode: z.boolean().optional(),
  blockAds: z.boolean().optional(),
  proxy: z.string().max(32).optional(),
  maxAge: z.number().int().min(0).optional(),
  minAge: z.number().int().min(0).optional(),
  storeInCache: z.boolean().optional(),
  redactPII: z.union([z.boolean(), z.looseObject({})]).optional(),
  zeroDataRetention: z.boolean().optional(),
});
export type ScrapeOptions = z.infer<typeof scrapeOptionsSchema>;

/** A URL as /v2 takes it: an absolute http(s) URL (the SDKs trim it). */
export const urlSchema = z
  .string()
  .min(1)
  .max(2048)
  .refine((value) => /^https?:\/\/[^\s/?#]+[^\s]*$/i.test(value) && URL.canParse(value), { message: 'must be an absolute http(s) URL' });

/** Firecrawl's webhook: an address, or `{url, headers, metadata, events}`. */
export const webhookSchema = z.union([
  urlSchema,
  z.looseObject({
    url: urlSchema,
    headers: z.record(z.string(), z.string()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    events: z.array(z.enum(['completed', 'failed', 'page', 'started'])).optional(),
  }),
]);
export type WebhookOption = z.infer<typeof webhookSchema>;

/** POST /v2/scrape: the options at the top level, beside `url`. */
export const scrapeRequestSchema = scrapeOptionsSchema.extend({ url: urlSchema });
export type ScrapeRequest = z.infer<typeof scrapeRequestSchema>;
