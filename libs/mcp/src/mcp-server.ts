import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { AppError, Errors } from '@app/core';
import { describeDto, SCHEMA_MISMATCH_DETAIL, StrictValidationPipe, toProblem } from '@app/http';
import { progressSink } from './progress';
import type { RestPort } from './rest-port';
import { refused, toCallToolResult, type ToolOutcome } from './tool-outcome';
import { toolInputSchema } from './tool-schema';
import { TOOLS, type ToolDefinition } from './tools';

export interface McpServerOptions {
  /** The REST routes, as the caller. */
  rest: RestPort;
  /** The service's version (the server's, as MCP reports it). */
  version: string;
  /** Between two reads of a followed job (tests shorten it). Default 1 s. */
  pollMs?: number;
}

const INSTRUCTIONS =
  'Gleaner extracts typed JSON from web pages. One page: extract (with a schema), scrape (markdown, no schema), analyze (what a page holds). ' +
  'Many pages: map lists a site, crawl_start follows links, batch_extract takes a URL list; follow them with job_status (wait) and read job_results page by page. ' +
  'A refused call is a tool error whose text is the problem detail (field errors at `body.<argument>`).';

const pipe = new StrictValidationPipe();
// One validator for every server (the HTTP transport makes a server per request).
const validator = new AjvJsonSchemaValidator();

/** The tools as MCP lists them: input schemas from the DTOs' validation metadata. */
export function listTools(): Tool[] {
  return TOOLS.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: `${tool.description} Needs: ${tool.scope === 'full access' ? 'a full-access key' : `the "${tool.scope}" scope`}.`,
    inputSchema: toolInputSchema(tool) as Tool['inputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
  }));
}

/** Splits the arguments: the tool's own (validated here, as the REST pipe validates bodies) and the REST body's. */
async function splitArguments(
  tool: ToolDefinition,
  raw: Record<string, unknown>,
): Promise<{ args: object; body: Record<string, unknown> }> {
  const own = describeDto(tool.args);
  const mine: Record<string, unknown> = {};
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (own.has(key) || !tool.body) mine[key] = value;
    else body[key] = value;
  }
  // A tool without arguments of its own: class-validator refuses a class without metadata, so only unknown keys are checked.
  if (own.size === 0) {
    const unknown = Object.keys(mine);
    if (unknown.length) {
      throw Errors.validation(
        unknown.map((key) => ({ location: `body.${key}`, message: 'unknown field' })),
        SCHEMA_MISMATCH_DETAIL,
      );
    }
    return { args: {}, body };
  }
  const args = (await pipe.transform(mine, { type: 'body', metatype: tool.args as never, data: undefined })) as object;
  return { args, body };
}

/**
 * An MCP server (low-level SDK Server: the input schemas are JSON Schema from the DTOs, not zod) whose
 * tools call the REST routes through `rest`. Unknown tools and malformed requests stay JSON-RPC errors
 * (the SDK's); a refused call is a tool error carrying the problem.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: 'gleaner', title: 'Gleaner', version: options.version },
    { capabilities: { tools: { listChanged: false } }, instructions: INSTRUCTIONS, jsonSchemaValidator: validator },
  );
  const tools = listTools();
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const instance = `/mcp/tools/${tool.name}`;
    let outcome: ToolOutcome;
    try {
      const { args, body } = await splitArguments(tool, request.params.arguments ?? {});
      outcome = await tool.run({
        rest: options.rest,
        args: args as Record<string, unknown>,
        body,
        progress: progressSink(request.params._meta?.progressToken, extra.sendNotification),
        signal: extra.signal,
        pollMs: options.pollMs ?? 1000,
      });
    } catch (error) {
      // The tool's own arguments refused (an AppError, as the REST pipe's), or the service out of reach (stdio).
      // Anything else is a bug and stays a JSON-RPC error.
      if (isUnreachable(error)) outcome = refused(unreachableProblem(error, instance));
      else if (error instanceof AppError) outcome = refused({ ...toProblem(error, instance, String(extra.requestId)).body });
      else throw error;
    }
    return toCallToolResult(outcome);
  });
  return server;
}

/** The REST port's signal that the service cannot be reached (stdio: GLEANER_URL down). */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly baseUrl: string,
    reason: string,
  ) {
    super(`Gleaner at ${baseUrl} cannot be reached: ${reason}`);
  }
}

function isUnreachable(error: unknown): error is ServiceUnreachableError {
  return error instanceof ServiceUnreachableError;
}

function unreachableProblem(error: ServiceUnreachableError, instance: string): Record<string, unknown> {
  return { type: '/problems/service-unavailable', title: 'Service unavailable', status: 503, detail: error.message, instance };
}
