import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { createMcpServer } from '@app/mcp';
import { cliVersion, type CliContext } from '../context';
import { EXIT, type ExitCode } from '../exit-codes';
import { FetchRestPort } from './fetch-rest-port';

/**
 * `gleaner mcp`: the MCP tools on stdin/stdout for an agent client that starts this command; every
 * tool call is a request to the service at GLEANER_URL with GLEANER_API_KEY. Nothing but protocol on
 * stdout; ends when the client closes stdin (or on Ctrl-C).
 */
export async function serveStdio(ctx: CliContext): Promise<ExitCode> {
  const server = createMcpServer({ rest: new FetchRestPort(ctx.client()), version: cliVersion() });
  const transport = new StdioServerTransport(ctx.io.stdin, ctx.io.stdout);
  const closed = new Promise<void>((resolve) => {
    server.onclose = resolve;
  });
  await server.connect(transport);
  const close = () => void server.close();
  ctx.io.stdin.once('end', close);
  ctx.signal.addEventListener('abort', close, { once: true });
  await closed;
  return EXIT.ok;
}
