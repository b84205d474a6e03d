import { Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ApiBearerAuth, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { CountsOwnRequests, CurrentCaller, KeyRateLimit, RequiresKey, type Caller } from '@app/auth';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { createMcpServer, TOOLS } from '@app/mcp';
import { ApiProblems } from '../openapi-constraints';
import { InjectRestPort } from '../mcp-inject-port';

/** A tool call the REST route it makes counts against the rate limit; every other message counts here. */
function isToolCall(message: unknown): boolean {
  const m = message as { method?: unknown; params?: { name?: unknown } } | null;
  return m?.method === 'tools/call' && TOOLS.some((tool) => tool.name === m.params?.name);
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
  @ApiProblems(400, 406, 413, 415)
  @ApiOperation({
    summary: 'Model Context Protocol (streamable HTTP, stateless): the tools of docs/mcp.md',
    description:
      'One JSON-RPC message per POST (Accept: application/json, text/event-stream); answered as an SSE stream (progress notifications, then the result) or 202 for a notification. ' +
      'Any valid key may connect; each tool needs the scope of the REST route it calls, whose rate limit, tenant isolation and validation it shares (a refusal is a tool error carrying the problem). ' +
      'Sessions are not kept (GET and DELETE: 405). Protocol errors are JSON-RPC errors from the MCP SDK.',
  })
  @ApiBody({ description: 'A JSON-RPC 2.0 message (MCP).', schema: { type: 'object' } })
  @ApiOkResponse({ description: 'The JSON-RPC answer, as an SSE stream (`text/event-stream`) or JSON.' })
  async mcp(@CurrentCaller() caller: Caller, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    if (!isToolCall(request.body)) await this.rateLimit.consume(caller, reply);
    const fastify = this.adapterHost.httpAdapter.getInstance<FastifyInstance>();
    const rest = new InjectRestPort(fastify, request.headers.authorization, String(request.id));
    const server = createMcpServer({ rest, version: this.config.version });
    // Stateless: a server and a transport per request, so any replica answers any message.
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  }
}
