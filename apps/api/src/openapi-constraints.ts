import { SetMetadata, type Type } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import type { OpenAPIObject } from '@nestjs/swagger';
import { PROBLEMS } from '@app/core';
import { IDEMPOTENT_KEY } from './idempotency.interceptor';
import { describeDto, dtoObjectSchema, isDto, propertyJsonSchema, type DtoClass, type JsonSchema } from '@app/http';

/**
 * Makes the OpenAPI document state exactly what the validation accepts. @nestjs/swagger documents
 * what the @ApiProperty decorators say; the validation is what the class-validator decorators say.
 * This post-processor rewrites every request schema (bodies, nested DTOs, query parameters) from the
 * class-validator metadata the validation pipe runs on (libs/http describeDto): types, integer vs
 * number, lengths, ranges, enums, patterns, formats, item limits, required, nullability and
 * `additionalProperties: false`. And it lists on every operation each status it can answer, with the
 * problem+json schema. The rule-to-keyword mapping is libs/http dto-json-schema.ts (the MCP tools use it too).
 * test/e2e/hardening.e2e-spec.ts proves every DTO rule appears in the document.
 */

type Schema = JsonSchema;

const PROBLEM_MEDIA = 'application/problem+json';
const PROBLEMS_KEY = 'gleaner:problems';

const LIST_BODY_KEY = 'gleaner:list-body';

/** The operation also takes a URL list body (text/plain, application/x-ndjson; libs/http url-list-body.ts). */
export const ApiListBody = () => SetMetadata(LIST_BODY_KEY, true);

const LIST_BODY_CONTENT: Schema = {
  'text/plain': {
    schema: { type: 'string', description: 'One URL per line; blank lines and lines starting with `#` are skipped.' },
    example: 'https://shop.example/p/1\nhttps://shop.example/p/2\n',
  },
  'application/x-ndjson': {
    schema: { type: 'string', description: 'One JSON value per line: a URL string, or `{"url": "..."}`.' },
    example: '"https://shop.example/p/1"\n{"url": "https://shop.example/p/2"}\n',
  },
};

/** Statuses an operation answers besides the common ones (e.g. 409 on cancel, 406 on results). */
export const ApiProblems = (...statuses: number[]) => SetMetadata(PROBLEMS_KEY, statuses);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Malformed request: invalid JSON, duplicate keys, lone surrogates, nesting or array limits exceeded, a malformed path.',
  401: 'No API key, or an unknown, expired or revoked one.',
  403: 'The key lacks the scope this operation needs (or the resource is read-only for this caller).',
  404: 'No such resource for this caller (resources of other users are reported as not found).',
  406: 'The requested format is not supported.',
  409: 'Conflicts with the current state of the resource.',
  413: 'The request body is larger than the limit.',
  415: 'The request body is not JSON.',
  422: 'Invalid fields; `errors[]` points at each of them.',
  429: 'Too many requests for this API key; retry after `Retry-After` seconds.',
  500: 'Unexpected error; the `error_id` is in the server logs.',
  502: 'The target site or the language model failed, something the caller cannot fix: the page is not there (`fetch_error`: DNS lookup, connect, TLS, reset, redirects; `http_error`, `blocked`, `rate_limit`, `unsupported_content`, `content_too_large`, `document_invalid`, `document_encrypted`) or the model chain failed (`llm_*`, `ungrounded_output`); see `error_category` and `job_id`. Only a failure of Gleaner itself is a 500.',
  503: 'Not ready, shutting down, or the store cannot be reached or failed a command; retry after `Retry-After` seconds. A job already accepted is named (`job_id`, `status_url`): it goes on.',
  504: 'The job did not finish in time; it goes on (`job_id`, `status_url`).',
};

const PROBLEM_SCHEMA: Schema = {
  type: 'object',
  description: 'RFC 9457 problem details. `type` is `/problems/<slug>`, described at `GET /problems/<slug>`.',
  required: ['type', 'title', 'status', 'detail', 'instance'],
  properties: {
    type: { type: 'string', example: '/problems/validation-error' },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    instance: { type: 'string', description: '`<path>#<request id>`' },
    errors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['location', 'message'],
        properties: { location: { type: 'string', example: 'body.name' }, message: { type: 'string' }, value: {} },
      },
    },
    error_category: { type: 'string' },
    error_id: { type: 'string' },
    job_id: { type: 'string' },
    status_url: { type: 'string' },
  },
};

/** Rewrites the component of a DTO class (and the DTOs nested in it) from its validation metadata. */
function constrainComponent(doc: OpenAPIObject, cls: DtoClass, seen: Set<DtoClass>): void {
  const schemas = (doc.components!.schemas ??= {}) as Record<string, Schema>;
  const key = cls.name;
  if (seen.has(cls)) return;
  seen.add(cls);
  const original: Schema = schemas[key] ?? { type: 'object', properties: {} };
  const out = dtoObjectSchema(cls, original.properties as Record<string, Schema> | undefined, componentRef(doc, seen));
  schemas[key] = original.description ? { ...out, description: original.description } : out;
}

/** Nested DTOs become components of their own, referenced by `$ref`. */
function componentRef(doc: OpenAPIObject, seen: Set<DtoClass>) {
  return (nested: DtoClass): Schema => {
    constrainComponent(doc, nested, seen);
    return { $ref: `#/components/schemas/${nested.name}` };
  };
}

function queryParameters(doc: OpenAPIObject, operation: Schema, cls: DtoClass, seen: Set<DtoClass>): void {
  const given = new Map<string, Schema>(
    (operation.parameters ?? []).filter((p: Schema) => p.in === 'query').map((p: Schema) => [p.name as string, p]),
  );
  const others = (operation.parameters ?? []).filter((p: Schema) => p.in !== 'query');
  const query: Schema[] = [];
  for (const property of describeDto(cls).values()) {
    const param = given.get(property.name) ?? { name: property.name, in: 'query' };
    const schema = propertyJsonSchema(param.schema, property, componentRef(doc, seen));
    query.push({ ...param, required: !property.optional, schema });
  }
  operation.parameters = [...others, ...query];
}

function argumentClasses(controller: Type, method: string): { body?: DtoClass; query?: DtoClass } {
  const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, method) ?? {}) as Record<string, { index: number }>;
  const types = (Reflect.getMetadata('design:paramtypes', controller.prototype as object, method) ?? []) as unknown[];
  const out: { body?: DtoClass; query?: DtoClass } = {};
  for (const [key, arg] of Object.entries(args)) {
    const kind = Number(key.split(':')[0]);
    const cls = types[arg.index];
    if (!isDto(cls)) continue;
    if (kind === (RouteParamtypes.BODY as number)) out.body = cls;
    if (kind === (RouteParamtypes.QUERY as number)) out.query = cls;
  }
  return out;
}

/** The statuses every operation can answer, from what it takes and whether it needs a key. */
function statusesOf(operation: Schema, extra: number[], hasBody: boolean, hasQuery: boolean, method: string): number[] {
  const statuses = new Set<number>([500, 503, ...extra]);
  const secured = Array.isArray(operation.security) && operation.security.length > 0;
  if (secured) [401, 403, 429].forEach((s) => statuses.add(s));
  const hasPath = (operation.parameters ?? []).some((p: Schema) => p.in === 'path');
  // 400: a path whose percent-encoding is not UTF-8; 404 also for a segment over 100 characters.
  if (hasPath) [400, 404].forEach((s) => statuses.add(s));
  if (hasPath || hasQuery || hasBody) statuses.add(422);
  if (hasQuery || hasBody) statuses.add(400);
  if (hasBody) [400, 413, 415].forEach((s) => statuses.add(s));
  // An operation that takes no body still reads one a client sends (an empty one is no body: create-app.ts):
  // past the limit a 413, not JSON a 415, malformed a 400.
  if (method !== 'get') [400, 413, 415].forEach((s) => statuses.add(s));
  return [...statuses].sort((x, y) => x - y);
}

/** Applies the validation metadata and the problem responses to the generated document (in place). */
export function applyValidationToDocument(doc: OpenAPIObject, controllers: Type[]): OpenAPIObject {
  const byName = new Map(controllers.map((c) => [c.name, c]));
  const schemas = (doc.components!.schemas ??= {}) as Record<string, Schema>;
  schemas.Problem = PROBLEM_SCHEMA;
  const seen = new Set<DtoClass>();
  for (const item of Object.values(doc.paths) as Schema[]) {
    for (const [method, operation] of Object.entries(item)) {
      if (!['get', 'put', 'post', 'delete', 'patch'].includes(method)) continue;
      const [controllerName, handler] = String(operation.operationId ?? '').split('_');
      const controller = byName.get(controllerName);
      const { body, query } = controller ? argumentClasses(controller, handler) : {};
      if (body) {
        constrainComponent(doc, body, seen);
        operation.requestBody = {
          required: true,
          content: { 'application/json': { schema: { $ref: `#/components/schemas/${body.name}` } } },
        };
        if (controller && Reflect.getMetadata(LIST_BODY_KEY, controller.prototype[handler]))
          Object.assign(operation.requestBody.content, LIST_BODY_CONTENT);
      }
      if (query) queryParameters(doc, operation, query, seen);
      for (const param of (operation.parameters ?? []) as Schema[]) {
        if (param.in === 'path') param.schema = { ...(param.schema ?? {}), type: 'string', minLength: 1 };
      }
      const extra = controller ? [...((Reflect.getMetadata(PROBLEMS_KEY, controller.prototype[handler]) ?? []) as number[])] : [];
      // Idempotency-Key: the same key with another request is a 422, a key still being answered a 409.
      if (controller && Reflect.getMetadata(IDEMPOTENT_KEY, controller.prototype[handler])) extra.push(409, 422);
      const responses = (operation.responses ??= {}) as Record<string, Schema>;
      for (const [status, response] of Object.entries(responses)) {
        if (!response.description) response.description = Number(status) < 300 ? 'OK' : (DESCRIPTIONS[Number(status)] ?? '');
      }
      for (const status of statusesOf(operation, extra, Boolean(body), Boolean(query), method)) {
        responses[String(status)] = {
          description: `${DESCRIPTIONS[status] ?? PROBLEMS_DESCRIPTION(status)}${problemTypes(status)}`,
          content: { [PROBLEM_MEDIA]: { schema: { $ref: '#/components/schemas/Problem' } } },
        };
      }
    }
  }
  return doc;
}

function PROBLEMS_DESCRIPTION(status: number): string {
  return Object.values(PROBLEMS).find((p) => p.status === status)?.description ?? 'Problem';
}

/** The problem types a status is answered with (`type: /problems/<slug>`), as the description's last words. */
function problemTypes(status: number): string {
  const slugs = Object.entries(PROBLEMS)
    .filter(([, problem]) => problem.status === status)
    .map(([slug]) => `\`/problems/${slug}\``);
  return slugs.length > 0 ? ` Problem \`type\`: ${slugs.join(', ')}.` : '';
}
