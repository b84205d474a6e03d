import { Readable } from 'node:stream';
import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiAcceptedResponse, ApiBearerAuth, ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CountsOwnRequests, CurrentCaller, KeyRateLimit, RequiresKey, type Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { createMcpServer, TOOLS } from '@app/mcp';
import { InjectRestPort } from '../mcp-inject-port';
import { sdkRefusal } from '../mcp-http-refusal';
import { MCP_ACCEPT_SCHEMA, MCP_MESSAGE_SCHEMA } from '../mcp-message.schema';
import { ApiProblems } from '../openapi-constraints';

/** A tool call is counted by the REST route it makes; every other message counts here. */
function isToolCall(message: unknown): boolean {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  return m?.method === 'tools/call' && TOOLS.some((tool) => tool.name === m.params?.name);
}

function webRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  // The body is parsed already (the strict JSON parser); the transport takes it as parsedBody.
  headers.delete('content-length');
  headers.delete('transfer-encoding');
  return new Request(`http://localhost${request.url}`, { method: request.method, headers });
}

@ApiTags('MCP')
@ApiBearerAuth()
@Controller()
@RequiresKey()
@CountsOwnRequests()
export class McpController {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly rateLimit: KeyRateLimit,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Post('mcp')
  @HttpCode(200)
  @ApiProblems(400, 406, 413, 415, 422)
  @ApiOperation({
    summary: 'Model Context Protocol (streamable HTTP, stateless): the tools of docs/mcp.md',
    description:
      'One JSON-RPC message per POST (Accept: application/json, text/event-stream): answered as an SSE stream (progress notifications, then the result), or 202 for a notification. ' +
      'Any valid key may connect; each tool needs the scope of the REST route it calls, whose rate limit, tenant isolation and validation it shares (a refused call is a tool error carrying the problem). ' +
      'No sessions (GET and DELETE: 405). A body that is not a JSON-RPC message is a 422, a missing Accept a 406, an unsupported MCP-Protocol-Version a 400.',
  })
  @ApiBody({ schema: MCP_MESSAGE_SCHEMA })
  @ApiHeader({ name: 'accept', required: true, description: 'Both `application/json` and `text/event-stream`.', schema: MCP_ACCEPT_SCHEMA })
  @ApiProduces('text/event-stream', 'application/json')
  @ApiOkResponse({ description: 'The JSON-RPC answer, as an SSE stream (`text/event-stream`) or JSON.' })
  @ApiAcceptedResponse({ description: 'A notification or a response from the client: accepted, nothing to answer.' })
  async mcp(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!isToolCall(request.body)) await this.rateLimit.consume(caller, reply);
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const rest = new InjectRestPort(fastify, request.headers.authorization, String(request.id));
    const server = createMcpServer({ rest, version: this.config.version });
    // Stateless: a server and a transport per request, so any replica answers any message.
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    const close = () => {
      void transport.close();
      void server.close();
    };
    await server.connect(transport);
    const response = await transport.handleRequest(webRequest(request), { parsedBody: request.body });
    if (response.status >= 400) {
      close();
      throw await sdkRefusal(response);
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = String(value);
    response.headers.forEach((value, name) => (headers[name] = value));
    reply.hijack();
    reply.raw.writeHead(response.status, headers);
    if (!response.body) {
      reply.raw.end();
      close();
      return;
    }
    const body = Readable.fromWeb(response.body);
    // The client went away, or the answer is complete: end this request's server either way.
    reply.raw.once('close', () => {
      body.destroy();
      close();
    });
    body.pipe(reply.raw);
  }
}
