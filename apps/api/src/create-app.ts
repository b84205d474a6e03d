import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { SwaggerModule } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AuthGuard, UsersService, type BootstrapOutcome } from '@app/auth';
import type { AppConfig } from '@app/config';
import { AppError, newId } from '@app/core';
import {
  parseJsonBody,
  readUrlListBody,
  StrictValidationPipe,
  URL_LIST_MEDIA_TYPES,
  URL_LIST_MAX_LINE_BYTES,
  type UrlListMediaType,
} from '@app/http';
import { createLogger, Metrics, PinoNestLogger, type AppLogger } from '@app/observability';
import { openPorts } from '@app/platform';
import type { AppExtensions } from '@app/worker';
import fastifyWebsocket from '@fastify/websocket';
import { buildFirecrawlOpenApi, FirecrawlWatcherService, isNotSupportedRoute, type WatcherSocket } from '@app/firecrawl';
import { ApiModule, apiControllers } from './app.module';
import { WARC_ROUTES } from './controllers/archive.controller';
import { URL_LIST_ROUTES } from './controllers/batch.controller';
import { MethodTable } from './method-table';
import { RoutePolicies, routeKey, routesWithBody } from './route-policies';
import { buildOpenApiDocument } from './openapi';
import { sendProblem } from './problem.filter';

export interface ApiApp {
  app: NestFastifyApplication;
  logger: AppLogger;
  /** What this start did about the admin key before listening: GLEANER_BOOTSTRAP_KEY's key, or `none`/`exists`. */
  bootstrap: BootstrapOutcome;
  /** Once listening, embedded: a generated admin key when the store holds none (main prints it once). */
  generateAdminKey(): Promise<BootstrapOutcome>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** The /v2 status routes that also serve Firecrawl's WebSocket watcher. */
const WATCHED_ROUTES = new Set(['/v2/crawl/:id', '/v2/batch/scrape/:id']);

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return (length !== undefined && length !== '0') || request.headers['transfer-encoding'] !== undefined;
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0].trim().toLowerCase();
}

function isJson(contentType: string | undefined): boolean {
  const mediaType = mediaTypeOf(contentType);
  return mediaType === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType);
}

function isWarc(contentType: string | undefined): boolean {
  return ['application/warc', 'application/gzip'].includes(mediaTypeOf(contentType));
}

function isUrlList(contentType: string | undefined): boolean {
  return (URL_LIST_MEDIA_TYPES as readonly string[]).includes(mediaTypeOf(contentType));
}

/** Builds the API (and, in embedded mode, the crawler side) as a Nest application on Fastify. */
export async function createApiApp(
  config: AppConfig,
  options: { destination?: NodeJS.WritableStream; extensions?: AppExtensions } = {},
): Promise<ApiApp> {
  const logger = createLogger({ level: config.logLevel, name: `gleaner-${config.role}`, destination: options.destination });
  const metrics = new Metrics(config.role === 'all' ? 'embedded' : config.role);
  const ports = await openPorts(config);

  const adapter = new FastifyAdapter({
    bodyLimit: config.bodyLimitBytes,
    genReqId: (request: { headers: Record<string, string | string[] | undefined> }) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : `req_${newId()}`;
    },
    return503OnClosing: true,
    // Router-level refusals leave as problem+json too: malformed percent-encoding in the path is a 400;
    // a path segment longer than any id (Fastify's 100-character limit) names nothing, so a 404.
    frameworkErrors: (error: { code?: string }, request: FastifyRequest, reply: FastifyReply) => {
      const problem =
        error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? new AppError('not-found', 'No resource has an id this long.')
          : new AppError('bad-request', 'The path is not valid (malformed percent-encoding).');
      void reply.header('x-request-id', String(request.id));
      sendProblem(logger, problem, request, reply);
    },
  });
  const app = await NestFactory.create<NestFastifyApplication>(
    ApiModule.forRoot(config, ports, logger, metrics, options.extensions),
    adapter,
    {
      logger: new PinoNestLogger(logger),
      bufferLogs: false,
      // Bodies are parsed by the strict JSON parser below only (no Nest json/urlencoded parsers).
      bodyParser: false,
    },
  );
  app.useGlobalPipes(new StrictValidationPipe());

  const fastify = app.getHttpAdapter().getInstance();
  // Strict JSON bodies (duplicate keys, lone surrogates, nesting and array limits: libs/http json-body.ts).
  fastify.removeContentTypeParser(['application/json']);
  // Operations that take a body (from the OpenAPI document, filled below): an empty body with a JSON content type
  // is no body at all on the others (a client library that always sends the header), not a malformed one. The
  // /v2 routes have their own document: there only DELETE takes an empty body as none (Firecrawl's Python SDK
  // sends DELETE with Content-Type: application/json and no body; docs/firecrawl.md).
  let bodyRoutes = new Set<string>();
  const jsonParser = (request: FastifyRequest, body: string | Buffer, done: (error: Error | null, value?: unknown) => void) => {
    const firecrawl = request.url.startsWith('/v2/');
    if (
      body.length === 0 &&
      (firecrawl ? request.method === 'DELETE' : !bodyRoutes.has(routeKey(request.method, request.routeOptions?.url)))
    )
      return done(null, undefined);
    try {
      done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
    } catch (error) {
      done(error as Error);
    }
  };
  fastify.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: config.bodyLimitBytes }, jsonParser);
  fastify.addContentTypeParser(/^application\/[a-z0-9.+-]+\+json$/, { parseAs: 'string', bodyLimit: config.bodyLimitBytes }, jsonParser);
  // URL list bodies (POST /batch/extract only, see the hook below): read as they stream, outside the JSON body limit.
  fastify.removeContentTypeParser(['text/plain']);
  const listLimits = { maxUrls: config.batchMaxUrls, maxBytes: config.batchMaxUrls * (URL_LIST_MAX_LINE_BYTES / 4) + 1_048_576 };
  fastify.addContentTypeParser(
    [...URL_LIST_MEDIA_TYPES],
    { bodyLimit: listLimits.maxBytes },
    (request: FastifyRequest, payload: NodeJS.ReadableStream, done: (error: Error | null, value?: unknown) => void) => {
      readUrlListBody(payload as AsyncIterable<Buffer>, mediaTypeOf(request.headers['content-type']) as UrlListMediaType, listLimits).then(
        (body) => done(null, body),
        (error: Error) => done(error),
      );
    },
  );
  // WARC bodies (POST /warc-extract only, see the hook below): handed to the route as the raw stream, which
  // stores them as they arrive up to GLEANER_WARC_MAX_BYTES (docs/archive.md "WARC in").
  fastify.addContentTypeParser(
    ['application/warc', 'application/gzip'],
    (_request: FastifyRequest, payload: NodeJS.ReadableStream, done: (error: Error | null, value?: unknown) => void) => done(null, payload),
  );
  // The /v2 routes of Firecrawl features this server does not have answer 501 to any body, a file upload
  // (/v2/parse) too: such a body is read and dropped, then the key is checked and the route answers.
  fastify.addContentTypeParser(
    '*',
    { parseAs: 'buffer', bodyLimit: config.bodyLimitBytes },
    (request: FastifyRequest, _body: Buffer, done: (error: Error | null, value?: unknown) => void) =>
      isNotSupportedRoute(request.url)
        ? done(null, undefined)
        : done(new AppError('unsupported-media-type', 'Request bodies must be JSON (Content-Type: application/json).')),
  );
  const warcRoutes = new Set(WARC_ROUTES);
  const listRoutes = new Set(URL_LIST_ROUTES);
  // Which methods each path answers: an unsupported method on a known path is a 405 with Allow.
  const methods = new MethodTable();
  fastify.addHook('onRoute', (route: { method: string | string[]; url: string }) => methods.add(route.method, route.url));
  // Filled once the app is initialised: each route's key, rate limit and scope checks, run before its body is read.
  let admission: { policies: RoutePolicies; guard: AuthGuard } | null = null;
  fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('x-request-id', String(request.id));
    void reply.header('x-api-version', config.version);
    if (!request.routeOptions?.url) {
      const allowed = methods.allowed(request.url.split('?')[0]);
      if (allowed.length > 0) {
        throw new AppError('method-not-allowed', `${request.method} is not allowed on this path; it answers ${allowed.join(', ')}.`, {
          headers: { allow: allowed.join(', ') },
        });
      }
    }
    // Authenticate first (401, then 429 and 403), on every route: a caller without a valid key is told that, not what
    // is wrong with its body (its content type, size or JSON), which the checks below and the parsers answer.
    const policy = admission?.policies.policyOf(request.method, request.routeOptions?.url);
    if (policy) await admission!.guard.admit(request, reply, policy);
    // JSON-only bodies: refuse anything else before it is parsed (Nest also registers a form parser); URL lists where a route takes them.
    const contentType = request.headers['content-type'];
    if (request.method === 'POST' && warcRoutes.has(request.routeOptions?.url ?? '')) {
      if (!isWarc(contentType))
        throw new AppError(
          'unsupported-media-type',
          'This operation takes a WARC file (Content-Type: application/warc or application/gzip).',
        );
      return;
    }
    if (hasBody(request) && !isJson(contentType) && !isNotSupportedRoute(request.url)) {
      const takesLists = request.method === 'POST' && listRoutes.has(request.routeOptions?.url ?? '');
      if (!takesLists) throw new AppError('unsupported-media-type', 'Request bodies must be JSON (Content-Type: application/json).');
      if (!isUrlList(contentType)) {
        throw new AppError(
          'unsupported-media-type',
          'This operation takes JSON (application/json) or a URL list (text/plain, application/x-ndjson).',
        );
      }
    }
  });
  fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
    const route = request.routeOptions?.url ?? 'unmatched';
    const status = String(reply.statusCode);
    const seconds = reply.elapsedTime / 1000;
    metrics.httpRequests.inc({ method: request.method, route, status });
    metrics.httpDuration.observe({ method: request.method, route, status }, seconds);
    if (logger.isLevelEnabled('info')) {
      logger.info(
        { request_id: request.id, method: request.method, route, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
        'request',
      );
    }
  });

  // The Firecrawl-compatible crawl watcher (docs/firecrawl.md "Watcher"): a WebSocket upgrade of GET
  // /v2/crawl/{id} or /v2/batch/scrape/{id} goes to the watcher, a plain GET to the status route. This hook
  // runs before @fastify/websocket's own (registered after it), which then dispatches on the upgrade.
  const watcher = app.get(FirecrawlWatcherService);
  fastify.addHook('onRoute', (route: { method: string | string[]; url: string; wsHandler?: unknown }) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (!methods.includes('GET') || !WATCHED_ROUTES.has(route.url)) return;
    route.wsHandler = (socket: WatcherSocket, request: FastifyRequest) =>
      watcher.attach(socket, (request.params as { id: string }).id, request, request.url.split('?')[0], String(request.id));
  });
  // Firecrawl's JS SDK offers its key as the only subprotocol, and a WebSocket client (Node's, browsers') fails a
  // handshake that selects none of the protocols it offered: on the watcher paths the first is selected, so the
  // key goes back to its own sender in the 101's headers (as Firecrawl's server does). The one place a caller's
  // credential is echoed; never logged (docs/security.md "The Firecrawl watcher's subprotocol").
  const selectOnWatcher = (protocols: Set<string>, request: { url?: string }) =>
    /^\/v2\/(crawl|batch\/scrape)\/[^/?]+(\?|$)/.test(request.url ?? '') ? (protocols.values().next().value ?? false) : false;
  await fastify.register(fastifyWebsocket, { options: { handleProtocols: selectOnWatcher, maxPayload: 64 * 1024 } });
  const firecrawlDocument = buildFirecrawlOpenApi(config.version);
  fastify.get('/v2/openapi.json', async () => firecrawlDocument);

  const document = buildOpenApiDocument(app, config, apiControllers());
  bodyRoutes = routesWithBody(document);
  fastify.get('/api/v1/openapi.json', async () => document);
  SwaggerModule.setup('docs', app, document, { raw: false, customSiteTitle: 'Gleaner API' });

  await app.init();
  admission = { policies: RoutePolicies.of(app), guard: app.get(AuthGuard) };
  const users = app.get(UsersService);
  const bootstrap = await users.bootstrapFromSetting();
  return { app, logger, bootstrap, generateAdminKey: () => users.bootstrapGenerated() };
}
