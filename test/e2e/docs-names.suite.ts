/**
 * The lists of names the documents give are the running service's, not the code's own lists (issue 40, item 10):
 * the MCP tools and their arguments from `tools/list` of `POST /mcp`, the scrape formats, scrape request fields
 * and crawl options from the served OpenAPI document, the metrics from `/metrics` (docs/contributing.md
 * "Documents and the service agree"). Run by docs-examples.e2e-spec.ts after the examples, on its service.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { MCP_HELP } from '../../apps/cli/src/commands/mcp-command';
import { AS_FORMATS } from '../../apps/cli/src/commands/scrape-command';
import { documentPaths } from '../docs/doc-examples';
import {
  firstColumnNames,
  formatClaims,
  mcpToolRows,
  metricClaims,
  missingNames,
  namesAfter,
  parenthesisedList,
  unknownNames,
  type NameClaim,
} from '../docs/doc-names';
import { http } from './helpers';
import { ROOT } from './processes';

type Schema = { $ref?: string; properties?: Record<string, Schema>; items?: Schema; enum?: string[]; allOf?: Schema[] };

/** A document's path in the repository and its text. */
const documents = documentPaths(ROOT).map((path) => ({ file: path.slice(ROOT.length + 1), text: readFileSync(path, 'utf8') }));
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Every property name anywhere in a JSON Schema (a tool argument may be nested: `options` with `grounding`). */
function propertyNames(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) propertyNames(item, into);
  else if (schema && typeof schema === 'object') {
    for (const [key, value] of Object.entries(schema)) {
      if (key === 'properties' && value && typeof value === 'object') for (const name of Object.keys(value)) into.add(name);
      propertyNames(value, into);
    }
  }
  return into;
}

export function docsNamesSuite(getService: () => { url: string; key: string }): void {
  describe('names the documents give are the running service’s', () => {
    let tools: Array<{ name: string; inputSchema: unknown }>;
    let openapi: { paths: Record<string, any>; components: { schemas: Record<string, Schema> } };
    let metrics: Set<string>;

    /** A schema of the served document with its `$ref`s and `allOf`s followed, properties merged. */
    const resolved = (schema: Schema): Schema => {
      if (schema.$ref) return resolved(openapi.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
      if (!schema.allOf) return schema;
      const parts = schema.allOf.map(resolved);
      return { ...schema, properties: Object.assign({}, schema.properties, ...parts.map((p) => p.properties)) };
    };
    const requestBody = (path: string): Schema =>
      resolved(openapi.paths[path].post.requestBody.content['application/json'].schema as Schema);

    beforeAll(async () => {
      const service = getService();
      const client = new Client({ name: 'docs-names', version: '1' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${service.key}` } },
        }),
      );
      try {
        tools = (await client.listTools()).tools;
      } finally {
        await client.close();
      }
      const doc = await http(service.url, 'GET', '/api/v1/openapi.json');
      expect(doc.status).toBe(200);
      openapi = doc.body;
      // After the examples ran (extractions, crawls, scrapes, webhooks): every metric is registered, most have series.
      const text = (await http(service.url, 'GET', '/metrics')).text;
      metrics = new Set<string>();
      for (const m of text.matchAll(/^# TYPE (gleaner_[a-z0-9_]+) (\w+)$/gm)) {
        metrics.add(m[1]);
        if (m[2] === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) metrics.add(m[1] + suffix);
      }
    });

    it("MCP: the READMEs' lists, docs/mcp.md's table and `gleaner mcp --help` name exactly the tools of tools/list", () => {
      const listed = tools.map((tool) => tool.name);
      expect(listed.length).toBeGreaterThanOrEqual(15);
      const lists: Record<string, NameClaim[]> = {
        'README.md': namesAfter('README.md', read('README.md'), "Gleaner's tools ("),
        'apps/cli/README.md': namesAfter('apps/cli/README.md', read('apps/cli/README.md'), 'whose tools ('),
        'docs/mcp.md': mcpToolRows('docs/mcp.md', read('docs/mcp.md')).flatMap((row) => row.tools),
        'gleaner mcp --help': parenthesisedList('gleaner mcp --help', MCP_HELP, "Serves Gleaner's tools"),
      };
      const problems = Object.entries(lists).flatMap(([where, claims]) => [
        ...unknownNames(claims, listed),
        ...missingNames(claims, listed).map((name) => `${where} misses ${name}`),
      ]);
      expect(problems).toEqual([]);
    });

    it("MCP: every argument docs/mcp.md's table gives a tool is in that tool's inputSchema", () => {
      const problems = mcpToolRows('docs/mcp.md', read('docs/mcp.md')).flatMap((row) =>
        row.tools.flatMap((tool) => {
          const schema = tools.find((t) => t.name === tool.name)?.inputSchema;
          return unknownNames(row.inputs, propertyNames(schema)).map((problem) => `${problem} (an argument of ${tool.name})`);
        }),
      );
      expect(problems).toEqual([]);
    });

    it("scrape formats: docs/scrape.md's Formats table and docs/mcp.md's scrape row are the OpenAPI enum; code blocks ask only for those", () => {
      const formats = requestBody('/api/v1/scrape').properties!.formats;
      const served = resolved(formats.items!).enum!;
      expect(served).toContain('markdown');
      // Crawls and batches take the same formats (docs/scrape.md "Crawls and batches without a schema").
      for (const path of ['/api/v1/crawl', '/api/v1/batch/extract'])
        expect([path, resolved(requestBody(path).properties!.formats.items!).enum]).toEqual([path, served]);
      const scrapeDoc = read('docs/scrape.md');
      const table = firstColumnNames('docs/scrape.md', scrapeDoc, 'Formats');
      const mcpRow = read('docs/mcp.md')
        .split('\n')
        .find((line) => line.startsWith('| `scrape` |'))!;
      const mcp = parenthesisedList('docs/mcp.md', mcpRow, '`formats`');
      const inCode = documents.flatMap((doc) => formatClaims(doc.file, doc.text));
      expect(inCode.length).toBeGreaterThanOrEqual(3);
      // `gleaner scrape --as` offers the formats by the service's names, but `json` (it needs a schema: gleaner extract).
      expect([...AS_FORMATS].sort()).toEqual(served.filter((format) => format !== 'json').sort());
      expect({
        unknown: [...unknownNames(table, served), ...unknownNames(mcp, served), ...unknownNames(inCode, served)],
        'missing from docs/scrape.md': missingNames(table, served),
        'missing from docs/mcp.md': missingNames(mcp, served),
      }).toEqual({ unknown: [], 'missing from docs/scrape.md': [], 'missing from docs/mcp.md': [] });
    });

    it("request fields: docs/scrape.md's Request table is POST /scrape's body, docs/crawl.md's Options table the crawl options", () => {
      const check = (claims: NameClaim[], served: string[], file: string) => ({
        unknown: unknownNames(claims, served),
        [`missing from ${file}`]: missingNames(claims, served),
      });
      const scrape = Object.keys(requestBody('/api/v1/scrape').properties!);
      const options = Object.keys(resolved(requestBody('/api/v1/crawl').properties!.options).properties!);
      expect(options).toContain('max_pages');
      expect(check(firstColumnNames('docs/scrape.md', read('docs/scrape.md'), 'Request'), scrape, 'docs/scrape.md')).toEqual({
        unknown: [],
        'missing from docs/scrape.md': [],
      });
      expect(check(firstColumnNames('docs/crawl.md', read('docs/crawl.md'), 'Options'), options, 'docs/crawl.md')).toEqual({
        unknown: [],
        'missing from docs/crawl.md': [],
      });
    });

    it('metrics: every metric a document names is on the running service’s /metrics', () => {
      expect(metrics.size).toBeGreaterThanOrEqual(30);
      const claims = documents.flatMap((doc) => metricClaims(doc.file, doc.text));
      expect(claims.length).toBeGreaterThanOrEqual(40);
      expect(unknownNames(claims, metrics)).toEqual([]);
    });
  });
}
