import type { Command } from 'commander';
import type { CommandKit } from '../program';

/** After `gleaner mcp --help`'s options (its tool list is held against the service's: test/e2e/docs-names.suite.ts). */
export const MCP_HELP = `
Serves Gleaner's tools (extract, analyze, scrape, crawl_start, batch_extract,
map, job_status, job_results, job_cancel, list_sites, list_auth_profiles,
list_schemas, monitor_create, monitor_list, monitor_run, monitor_changes, monitor_pause,
monitor_resume) to an MCP client over stdio: the client starts this command
and talks JSON-RPC on its stdin and stdout. Every tool call is a request to the service at GLEANER_URL
with GLEANER_API_KEY (its scopes, rate limit and data). docs/mcp.md lists the
tools; the service also serves them itself at POST /mcp (streamable HTTP).

Client configuration (e.g. an "mcpServers" entry):
  {"command": "gleaner", "args": ["mcp"],
   "env": {"GLEANER_URL": "http://localhost:8080", "GLEANER_API_KEY": "glk_…"}}`;

export function registerMcp(program: Command, kit: CommandKit): void {
  program
    .command('mcp')
    .summary('serve the tools to an MCP client (agent) over stdio')
    .description('Runs an MCP server on stdin/stdout whose tools call the service.')
    .addHelpText('after', MCP_HELP)
    // Loaded only when run: the tool layer brings the DTOs of every lib.
    .action(kit.action(async (ctx) => (await import('../mcp/serve-stdio.js')).serveStdio(ctx)));
}
