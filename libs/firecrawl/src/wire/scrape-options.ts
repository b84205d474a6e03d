import { z } from 'zod';
import { HEADER_VALUE_PATTERN, TOKEN_PATTERN } from '@app/fetch';
import { checkHttpUrl, HTTP_URL_PATTERN } from '@app/http';

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

/**
 * Headers for the page's host, as Gleaner's fetch control takes them (header names and values, at most 50: the
 * rules /api/v1 states; which names are refused is a rule no document states).
 */
export const pageHeadersSchema = z
  .record(z.string().regex(TOKEN_PATTERN), z.string().max(8192).regex(HEADER_VALUE_PATTERN))
  .meta({ maxProperties: 50 });

/** A webhook's own headers, as Gleaner's webhooks take them (at most 10, no line breaks in a value). */
const webhookHeadersSchema = z
  .record(
    z.string().regex(TOKEN_PATTERN),
    z
      .string()
      .max(4096)
      .regex(/^[^\r\n\x00]*$/),
  )
  .meta({ maxProperties: 10 });

const actionSchema = z.looseObject({ type: z.string().max(64) });

export const scrapeOptionsSchema = z.looseObject({
  formats: z.array(formatOptionSchema).max(32).optional(),
  headers: pageHeadersSchema.optional(),
  includeTags: z.array(z.string().min(1).max(500)).max(50).optional(),
  excludeTags: z.array(z.string().min(1).max(500)).max(50).optional(),
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

/** The message of a URL the /v2 document refuses (the pattern) and of one Gleaner refuses beyond it (checkHttpUrl). */
const URL_MESSAGE = 'must be an absolute http(s) URL';

/**
 * A URL as /v2 takes it: Gleaner's own URL rule (HTTP_URL_PATTERN, what /api/v1's document states, and the
 * checks no pattern can state: it parses, no credentials), so a /v2 URL is one Gleaner's routes take.
 */
export const urlSchema = z
  .string()
  .min(1)
  .max(2048)
  .regex(HTTP_URL_PATTERN, { message: URL_MESSAGE })
  .refine((value) => checkHttpUrl(value) === null, { message: URL_MESSAGE });

/** Whether a URL of a list (batch, extract) is one Gleaner takes; the others are left out or refused by name. */
export function isGleanerUrl(value: string): boolean {
  return HTTP_URL_PATTERN.test(value) && checkHttpUrl(value) === null;
}

/** Firecrawl's webhook: an address, or `{url, headers, metadata, events}`. */
export const webhookSchema = z.union([
  urlSchema,
  z.looseObject({
    url: urlSchema,
    headers: webhookHeadersSchema.optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    events: z.array(z.enum(['completed', 'failed', 'page', 'started'])).optional(),
  }),
]);
export type WebhookOption = z.infer<typeof webhookSchema>;

/** POST /v2/scrape: the options at the top level, beside `url`. */
export const scrapeRequestSchema = scrapeOptionsSchema.extend({ url: urlSchema });
export type ScrapeRequest = z.infer<typeof scrapeRequestSchema>;
