import { z } from 'zod';
import * as req from '../wire/requests';
import * as res from '../wire/responses';
import { scrapeRequestSchema } from '../wire/scrape-options';

interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  body?: z.ZodType;
  query?: z.ZodType;
  ok: z.ZodType;
  /** Statuses beside 200 and the ones every operation has (400, 401, 403, 429, 500, 503). */
  statuses?: number[];
}

/** Every /v2 operation this server answers (the e2e suite checks the routes and this list agree). */
export const OPERATIONS: Operation[] = [
  {
    method: 'post',
    path: '/v2/scrape',
    summary: 'Scrape one page (a Gleaner scrape job; json and summary by the model chain)',
    body: scrapeRequestSchema,
    ok: res.scrapeResponseSchema,
    statuses: [409, 502, 504],
  },
  {
    method: 'post',
    path: '/v2/crawl',
    summary: 'Start a crawl (a Gleaner crawl job)',
    body: req.crawlRequestSchema,
    ok: res.jobStartedSchema,
  },
  {
    method: 'get',
    path: '/v2/crawl/{id}',
    summary: "A crawl's status and a page of its documents (`next` for more); a WebSocket upgrade is the watcher",
    query: req.statusQuerySchema,
    ok: res.jobStatusSchema,
    statuses: [404],
  },
  { method: 'delete', path: '/v2/crawl/{id}', summary: 'Cancel a crawl', ok: res.cancelledSchema, statuses: [404, 409] },
  {
    method: 'get',
    path: '/v2/crawl/{id}/errors',
    summary: "A crawl's failed pages and robots.txt-blocked URLs",
    ok: res.errorsResponseSchema,
    statuses: [404],
  },
  { method: 'get', path: '/v2/crawl/active', summary: 'Your crawls that have not ended', ok: res.activeCrawlsSchema },
  { method: 'get', path: '/v2/crawl/ongoing', summary: 'Same as /v2/crawl/active', ok: res.activeCrawlsSchema },
  {
    method: 'post',
    path: '/v2/crawl/params-preview',
    summary: 'The crawl options this server would use (prompts are not interpreted)',
    body: req.paramsPreviewRequestSchema,
    ok: res.paramsPreviewSchema,
  },
  {
    method: 'post',
    path: '/v2/map',
    summary: "A site's URLs (sitemaps and the seed page's links)",
    body: req.mapRequestSchema,
    ok: res.mapResponseSchema,
    statuses: [502],
  },
  {
    method: 'post',
    path: '/v2/batch/scrape',
    summary: 'Scrape a list of URLs (a Gleaner batch job)',
    body: req.batchScrapeRequestSchema,
    ok: res.jobStartedSchema,
  },
  {
    method: 'get',
    path: '/v2/batch/scrape/{id}',
    summary: "A batch's status and a page of its documents (`next` for more)",
    query: req.statusQuerySchema,
    ok: res.jobStatusSchema,
    statuses: [404],
  },
  { method: 'delete', path: '/v2/batch/scrape/{id}', summary: 'Cancel a batch', ok: res.cancelledSchema, statuses: [404, 409] },
  { method: 'get', path: '/v2/batch/scrape/{id}/errors', summary: "A batch's failed pages", ok: res.errorsResponseSchema, statuses: [404] },
  {
    method: 'post',
    path: '/v2/extract',
    summary: 'Extract a schema from a list of URLs (a Gleaner batch job with the schema)',
    body: req.extractRequestSchema,
    ok: res.extractStartedSchema,
  },
  { method: 'get', path: '/v2/extract/{id}', summary: "An extract's status and merged data", ok: res.extractStatusSchema, statuses: [404] },
  {
    method: 'post',
    path: '/v2/monitor',
    summary: 'Create a monitor (a Gleaner monitor)',
    body: req.createMonitorRequestSchema,
    ok: res.monitorResponseSchema,
  },
  { method: 'get', path: '/v2/monitor', summary: 'Your monitors', query: req.listQuerySchema, ok: res.monitorListSchema },
  { method: 'get', path: '/v2/monitor/{id}', summary: 'A monitor', ok: res.monitorResponseSchema, statuses: [404] },
  {
    method: 'patch',
    path: '/v2/monitor/{id}',
    summary: 'Update a monitor (status pauses or resumes it)',
    body: req.updateMonitorRequestSchema,
    ok: res.monitorResponseSchema,
    statuses: [404],
  },
  {
    method: 'delete',
    path: '/v2/monitor/{id}',
    summary: 'Delete a monitor and its history',
    ok: res.monitorDeletedSchema,
    statuses: [404],
  },
  { method: 'post', path: '/v2/monitor/{id}/run', summary: 'Run a monitor now', ok: res.checkResponseSchema, statuses: [404, 409] },
  {
    method: 'get',
    path: '/v2/monitor/{id}/checks',
    summary: "A monitor's checks (runs), newest first",
    query: req.listQuerySchema,
    ok: res.checkListSchema,
    statuses: [404],
  },
  {
    method: 'get',
    path: '/v2/monitor/{id}/checks/{checkId}',
    summary: 'A check and its changed pages (field diffs), with `next`',
    query: req.checkQuerySchema,
    ok: res.checkDetailSchema,
    statuses: [404],
  },
  {
    method: 'get',
    path: '/v2/team/credit-usage',
    summary: 'Pages this month (a page is a credit; nothing runs out)',
    ok: res.creditUsageSchema,
  },
  {
    method: 'get',
    path: '/v2/team/credit-usage/historical',
    summary: 'Pages per month',
    query: req.historicalQuerySchema,
    ok: res.creditHistorySchema,
  },
  { method: 'get', path: '/v2/team/token-usage', summary: 'Model tokens this month', ok: res.tokenUsageSchema },
  {
    method: 'get',
    path: '/v2/team/token-usage/historical',
    summary: 'Model tokens per month',
    query: req.historicalQuerySchema,
    ok: res.tokenHistorySchema,
  },
  { method: 'get', path: '/v2/team/queue-status', summary: 'Your jobs waiting and running', ok: res.queueStatusSchema },
  { method: 'get', path: '/v2/concurrency-check', summary: 'Your running jobs and the per-user cap', ok: res.concurrencySchema },
];

/** Firecrawl operations this server answers with 501 (docs/firecrawl.md "Not supported"). */
export const NOT_SUPPORTED_OPERATIONS: Array<{ method: 'get' | 'post' | 'delete'; path: string; what: string }> = [
  { method: 'post', path: '/v2/search', what: 'Web search' },
  { method: 'post', path: '/v2/search/{rest}', what: 'Web, research and developer search' },
  { method: 'get', path: '/v2/search/{rest}', what: 'Research and developer search' },
  { method: 'post', path: '/v2/agent', what: 'Agents' },
  { method: 'get', path: '/v2/agent', what: 'Agents' },
  { method: 'get', path: '/v2/agent/{rest}', what: 'Agents' },
  { method: 'delete', path: '/v2/agent/{rest}', what: 'Agents' },
  { method: 'post', path: '/v2/browser', what: 'Browser sessions' },
  { method: 'get', path: '/v2/browser', what: 'Browser sessions' },
  { method: 'post', path: '/v2/browser/{rest}', what: 'Browser sessions' },
  { method: 'delete', path: '/v2/browser/{rest}', what: 'Browser sessions' },
  { method: 'post', path: '/v2/scrape/{id}/interact', what: 'Interacting with a scraped page' },
  { method: 'delete', path: '/v2/scrape/{id}/interact', what: 'Interacting with a scraped page' },
  { method: 'post', path: '/v2/parse', what: 'Parsing uploaded files' },
  { method: 'post', path: '/v2/feedback', what: 'Feedback' },
];

const COMMON = [400, 401, 403, 429, 500, 503];
const REASONS: Record<number, string> = {
  400: 'Bad request: a field is invalid, or asks for something this server does not do (code NOT_SUPPORTED).',
  401: 'No key, or an unknown, expired or revoked key.',
  403: "The key lacks the operation's scope.",
  404: 'No such job or monitor for this key.',
  409: 'The job or monitor is in a state that does not allow it.',
  429: 'Rate limit of the key (Retry-After).',
  500: 'Internal error.',
  501: 'Not supported by this server.',
  502: 'The page or the model failed.',
  503: 'Not ready or overloaded (Retry-After).',
  504: 'The job outlasted the wait; it goes on.',
};

function jsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function outputSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

function parameters(op: { path: string; query?: z.ZodType }): unknown[] {
  const params: unknown[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 100 },
  }));
  if (op.query) {
    const schema = jsonSchema(op.query) as { properties?: Record<string, unknown> };
    for (const [name, property] of Object.entries(schema.properties ?? {}))
      params.push({ name, in: 'query', required: false, schema: property });
  }
  return params;
}

function errorResponses(statuses: number[]): Record<string, unknown> {
  return Object.fromEntries(
    statuses.map((status) => [
      String(status),
      { description: REASONS[status], content: { 'application/json': { schema: { $ref: '#/components/schemas/FirecrawlError' } } } },
    ]),
  );
}

/**
 * The OpenAPI 3.1 document of /v2, separate from /api/v1/openapi.json: Firecrawl's shapes, from the same zod
 * schemas the routes validate with. Request bodies allow fields they do not name (the SDKs add their own).
 */
export function buildFirecrawlOpenApi(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of OPERATIONS) {
    const statuses = [...new Set([...COMMON, ...(op.statuses ?? []), ...(op.body ? [413, 415] : [])])].sort();
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      security: [{ bearer: [] }],
      parameters: parameters(op),
      ...(op.body ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(op.body) } } } } : {}),
      responses: {
        '200': { description: 'The answer.', content: { 'application/json': { schema: outputSchema(op.ok) } } },
        ...errorResponses(statuses.filter((s) => s !== 413 && s !== 415)),
        ...(op.body
          ? {
              '413': {
                description: 'The body is over GLEANER_BODY_LIMIT_BYTES.',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/FirecrawlError' } } },
              },
              '415': {
                description: 'The body is not JSON.',
                content: { 'application/json': { schema: { $ref: '#/components/schemas/FirecrawlError' } } },
              },
            }
          : {}),
      },
    };
  }
  for (const op of NOT_SUPPORTED_OPERATIONS) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: `${op.what}: not supported by this server (501)`,
      security: [{ bearer: [] }],
      parameters: parameters(op),
      ...(op.method === 'post'
        ? { requestBody: { required: false, content: { 'application/json': { schema: { type: 'object' } } } } }
        : {}),
      // 404: a path segment longer than any id (Fastify's limit) names nothing, whatever the route.
      responses: errorResponses([401, 403, 429, 501, ...(op.method === 'post' ? [400] : []), ...(op.path.includes('{') ? [404] : [])]),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gleaner: Firecrawl-compatible API (/v2)',
      version,
      description:
        "Firecrawl's v2 API on Gleaner's jobs, for Firecrawl's SDKs, MCP server and integrations (docs/firecrawl.md). " +
        "Firecrawl's shapes (camelCase, success/data/error); Gleaner's own API is /api/v1 (/api/v1/openapi.json).",
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'glk_...' } },
      schemas: { FirecrawlError: outputSchema(res.errorBodySchema) },
    },
    paths,
  };
}
