/**
 * The MCP server end to end with the SDK's own client, over both transports: streamable HTTP at POST
 * /mcp and stdio through `gleaner mcp` (the built CLI, talking to the service over HTTP). Every tool
 * against the playground and the local model server, progress, paging, bad arguments, missing scopes,
 * revoked keys, tenants and the rate limit. Run on both deployments by mcp.e2e-spec.ts.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js';
import type { Gates } from '../fixtures/gate';
import type { ModelServer } from '../fixtures/model-server';
import { product, type Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';
import { ROOT } from './processes';

export interface McpEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  gates: Gates;
}

export type McpTransportKind = 'http' | 'stdio';

const CLI_MAIN = join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js');
const SCHEMA = { name: 'string', price: 'string', sku: 'string' };
const TOOL_NAMES = [
  'extract',
  'analyze',
  'scrape',
  'crawl_start',
  'batch_extract',
  'map',
  'job_status',
  'job_results',
  'job_cancel',
  'list_sites',
  'list_auth_profiles',
  'list_schemas',
  'monitor_create',
  'monitor_list',
  'monitor_run',
  'monitor_changes',
  'monitor_pause',
  'monitor_resume',
];

/** Connects the SDK client with `key` over the transport (stdio: a `gleaner mcp` child with GLEANER_URL and GLEANER_API_KEY). */
export async function connect(kind: McpTransportKind, baseUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'gleaner-e2e', version: '1.0.0' });
  if (kind === 'http') {
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
    );
  } else {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI_MAIN, 'mcp'],
        env: { PATH: process.env.PATH ?? '', GLEANER_URL: baseUrl, GLEANER_API_KEY: key },
        stderr: 'pipe',
      }),
    );
  }
  return client;
}

const text = (result: CallToolResult) => result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
const structured = (result: CallToolResult) => result.structuredContent as Record<string, any>;

export function mcpSuite(kind: McpTransportKind, getEnv: () => McpEnv): void {
  let env: McpEnv;
  let client: Client;
  const rest = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = (model = 'gpt-4o-mini') => ({ provider: 'openai', model, api_key: 'sk-mcp-test', base_url: env.models.openaiBaseUrl });
  const u = (path: string, host = 'shop.test') => env.play.url(host, path);
  const call = async (name: string, args: Record<string, unknown>, options: { onprogress?: (p: Progress) => void } = {}) =>
    (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000, ...options })) as CallToolResult;
  const newKey = async (scopes?: string[]) =>
    (await rest('POST', '/api/v1/keys', { body: { name: `mcp-${kind}-${Date.now()}`, ...(scopes ? { scopes } : {}) } })).body as {
      id: string;
      key: string;
    };

  beforeAll(async () => {
    env = getEnv();
    client = await connect(kind, env.app.baseUrl, env.app.adminKey);
  });
  afterAll(async () => client?.close());

  it('lists every tool with an input schema made from the same DTO metadata as the OpenAPI document', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
    const doc = (await rest('GET', '/api/v1/openapi.json')).body;
    const component = (name: string) => doc.components.schemas[name];
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.inputSchema as Record<string, any>]));
    for (const tool of tools) expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    // The body's properties are the component's, keyword for keyword (nested DTOs inlined instead of $ref).
    for (const [tool, dto] of [
      ['extract', 'ExtractRequestDto'],
      ['map', 'MapRequestDto'],
      ['batch_extract', 'BatchRequestDto'],
      ['crawl_start', 'CrawlRequestDto'],
      ['scrape', 'ScrapeRequestDto'],
      ['monitor_create', 'CreateMonitorDto'],
    ]) {
      const doc = component(dto);
      for (const [name, schema] of Object.entries<Record<string, any>>(doc.properties)) {
        const mine = byName[tool].properties[name];
        expect([tool, name, mine !== undefined]).toEqual([tool, name, true]);
        const ref = schema.allOf?.[0]?.$ref ?? schema.items?.$ref;
        if (ref) {
          const nested = component(String(ref).split('/').pop()!);
          const inlined = schema.items ? mine.items : mine;
          expect([tool, name, Object.keys(inlined.properties).sort()]).toEqual([tool, name, Object.keys(nested.properties).sort()]);
          expect(inlined.additionalProperties).toBe(false);
          continue;
        }
        for (const keyword of [
          'type',
          'pattern',
          'minLength',
          'maxLength',
          'minimum',
          'maximum',
          'enum',
          'maxItems',
          'minItems',
          'format',
        ]) {
          if (schema[keyword] !== undefined || mine[keyword] !== undefined)
            expect([tool, name, keyword, mine[keyword]]).toEqual([tool, name, keyword, schema[keyword]]);
        }
      }
      expect(byName[tool].required ?? []).toEqual(expect.arrayContaining(doc.required ?? []));
    }
    expect(byName.extract.properties.llm_config).toMatchObject({ type: 'object', additionalProperties: false });
    expect(byName.job_results.properties.limit).toMatchObject({ type: 'integer', minimum: 1, maximum: 100 });
    expect(byName.job_results.required).toEqual(['job_id']);
    expect(byName.crawl_start.properties.wait).toMatchObject({ type: 'boolean' });
    // Provenance options on every tool that extracts (docs/provenance.md).
    expect(byName.extract.properties.provenance).toMatchObject({ enum: ['off', 'summary', 'full'] });
    expect(byName.extract.properties.grounding).toMatchObject({ enum: ['report', 'null_ungrounded', 'fail_page'] });
    for (const tool of ['crawl_start', 'batch_extract'])
      expect([tool, byName[tool].properties.options.properties.provenance?.enum]).toEqual([tool, ['off', 'summary', 'full']]);
  });

  it('extract says per value whether it is on the page, and the summary counts the values that are not', async () => {
    const invented = await call('extract', {
      url: u('/product/4'),
      schema: SCHEMA,
      llm_config: llm('gpt-4o-mini+invent'),
      provenance: 'full',
    });
    expect(invented.isError).toBeFalsy();
    expect(structured(invented).metadata).toMatchObject({
      ungrounded_fields: 1,
      fields: { name: { source: 'model', grounded: true, evidence: { in: 'page' } }, price: { source: 'model', grounded: false } },
    });
    expect((invented.content[0] as { text: string }).text).toMatch(/\. 1 value is not on the page\.$/);
    const plain = await call('extract', { url: u('/product/4'), schema: SCHEMA, llm_config: llm() });
    expect(structured(plain).metadata.fields.price).toEqual({ source: 'model', grounded: true });
    expect((plain.content[0] as { text: string }).text).not.toMatch(/not on the page/);
  });

  it('extract, analyze and scrape answer structured content with a short summary', async () => {
    const extracted = await call('extract', { url: u('/product/2'), schema: SCHEMA, llm_config: llm() });
    expect(extracted.isError).toBeFalsy();
    expect(structured(extracted)).toMatchObject({ url: u('/product/2'), data: { name: product(2).name, sku: product(2).sku } });
    expect(extracted.content[0]).toMatchObject({ type: 'text', text: expect.stringMatching(/^Extracted .*product\/2 \(job \w+/) });
    expect(JSON.parse((extracted.content[1] as { text: string }).text)).toEqual(structured(extracted));

    const analyzed = await call('analyze', { url: u('/catalog/page/1'), fetch_mode: 'static', debug: false, llm_config: llm() });
    expect([analyzed.isError, text(analyzed).slice(0, 300)]).toEqual([undefined, expect.stringMatching(/^Analyzed /)]);
    expect(structured(analyzed)).toMatchObject({ page_type: expect.any(String), suggested_schema: expect.anything() });

    const scraped = await call('scrape', { url: u('/product/3'), formats: ['markdown', 'links'] });
    expect(scraped.isError).toBeFalsy();
    expect(structured(scraped).data.markdown).toContain(product(3).name);
    expect(text(scraped)).toMatch(/^Scraped .*: markdown, links\./);
  });

  it("map lists the site's URLs", async () => {
    const mapped = await call('map', { url: u('/'), search: 'product', limit: 5 });
    expect(mapped.isError).toBeFalsy();
    expect(structured(mapped)).toMatchObject({ url: u('/'), complete: true, count: 5 });
    expect(structured(mapped).urls[0].url).toContain('/product/');
    expect(text(mapped)).toMatch(/^5 URLs of /);
  });

  it('crawl_start with wait follows the crawl with progress notifications; job_results pages through it', async () => {
    const progress: Progress[] = [];
    const crawled = await call(
      'crawl_start',
      {
        url: u('/catalog/page/1'),
        schema: SCHEMA,
        llm_config: llm(),
        options: { follow_selector: 'a.product', max_depth: 1, max_pages: 5, concurrency: 2 },
        wait: true,
        timeout: 120,
      },
      { onprogress: (p) => progress.push(p) },
    );
    expect(crawled.isError).toBeFalsy();
    const job = structured(crawled);
    expect(job).toMatchObject({ type: 'crawl', status: 'completed', page_count: 5 });
    // Whichever notifications arrived only grow, up to the pages of the crawl. (The SDK client may drop one that shares a
    // read with the answer: it handles notifications a microtask later. job_status below proves delivery deterministically.)
    for (let i = 1; i < progress.length; i++) expect(progress[i].progress).toBeGreaterThan(progress[i - 1].progress);
    for (const p of progress) expect(p.progress).toBeLessThanOrEqual(5);

    const first = await call('job_results', { job_id: job.id, limit: 2 });
    expect(structured(first)).toMatchObject({ job_id: job.id, offset: 0, limit: 2, next_offset: 2 });
    expect(structured(first).items).toHaveLength(2);
    const rest_ = await call('job_results', { job_id: job.id, offset: 2, limit: 100 });
    expect(structured(rest_)).toMatchObject({ offset: 2, next_offset: null });
    const urls = [...structured(first).items, ...structured(rest_).items].map((i: any) => i.url);
    expect(new Set(urls).size).toBe(5);
    const all = (await rest('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    expect(urls).toEqual(all.map((i) => i.url));
  });

  it('job_status with wait sends progress notifications while the job runs and answers when it ends', async () => {
    const gate = `mcp-follow-${kind}-${Date.now()}`;
    const held = await rest('POST', '/api/v1/test-jobs', { body: { steps: 2, step_ms: 0, hold_at: 1, gate_url: env.gates.urlOf(gate) } });
    const progress: Progress[] = [];
    // The job cannot end before the gate opens, and the gate opens on the first notification: at least one arrives first.
    const followed = await call(
      'job_status',
      { job_id: held.body.id, wait: true, timeout: 120 },
      {
        onprogress: (p) => {
          progress.push(p);
          env.gates.open(gate);
        },
      },
    );
    expect(structured(followed)).toMatchObject({ id: held.body.id, type: 'test', status: 'completed' });
    expect(progress.length).toBeGreaterThanOrEqual(1);
    expect(progress[0].message).toMatch(/^(pending|running): \d+/);
  });

  it('batch_extract starts a batch; job_status with wait follows it; job_cancel refuses a finished job and cancels a running one', async () => {
    const started = await call('batch_extract', {
      urls: [u('/product/4'), u('/product/5'), u('/product/%34')],
      schema: SCHEMA,
      llm_config: llm(),
    });
    expect(started.isError).toBeFalsy();
    expect(structured(started)).toMatchObject({ status: 'pending', url_count: 2, duplicate_count: 1 });
    const followed = await call('job_status', { job_id: structured(started).job_id, wait: true }, { onprogress: () => undefined });
    expect(structured(followed)).toMatchObject({ type: 'batch', status: 'completed', page_count: 2 });
    expect(text(followed)).toMatch(/^Job \w+ \(batch\): completed, 2 of 2 pages/);

    const late = await call('job_cancel', { job_id: structured(started).job_id });
    expect(late.isError).toBe(true);
    expect(text(late)).toMatch(/^Conflict \(409\)/);

    const gate = `mcp-cancel-${kind}-${Date.now()}`;
    const held = await rest('POST', '/api/v1/test-jobs', { body: { steps: 1, step_ms: 0, hold_at: 0, gate_url: env.gates.urlOf(gate) } });
    const cancelled = await call('job_cancel', { job_id: held.body.id });
    expect(cancelled.isError).toBeFalsy();
    expect(structured(cancelled)).toMatchObject({ id: held.body.id, status: expect.stringMatching(/^(cancelled|running|pending)$/) });
    env.gates.open(gate);
  });

  it('list_sites and list_schemas answer the caller’s own', async () => {
    const site = await rest('POST', '/api/v1/sites', { body: { name: `mcp-${kind}`, url: u('/') } });
    const sites = await call('list_sites', {});
    expect(structured(sites).sites.map((s: any) => s.id)).toContain(site.body.id);
    const schemas = await call('list_schemas', {});
    expect(structured(schemas).schemas.length).toBeGreaterThan(0);
    expect(text(schemas)).toMatch(/^\d+ schemas: /);
  });

  it('monitor tools create, list, pause, resume and run a monitor, and read its changes', async () => {
    const created = await call('monitor_create', {
      name: `mcp-${kind}`,
      url: u('/'),
      schema: SCHEMA,
      llm_config: llm(),
      schedule: { every: '1h' },
      options: { max_depth: 0, fetch_mode: 'static' },
      paused: true,
    });
    expect(created.isError).toBeFalsy();
    const id = structured(created).id as string;
    expect(text(created).split('\n')[0]).toBe(`Monitor ${id} created; next run when resumed.`);
    expect(structured(await call('monitor_list', {})).monitors.map((m: any) => m.id)).toContain(id);
    expect(structured(await call('monitor_resume', { monitor_id: id }))).toMatchObject({ id, paused: false });
    expect(structured(await call('monitor_pause', { monitor_id: id }))).toMatchObject({ id, paused: true });
    const run = await call('monitor_run', { monitor_id: id });
    expect(run.isError).toBeFalsy();
    const jobId = structured(run).job_id as string;
    await waitFor(async () => ['completed', 'failed'].includes((await rest('GET', `/api/v1/jobs/${jobId}`)).body.status), 60_000);
    const changes = await waitFor(async () => {
      const answer = structured(await call('monitor_changes', { monitor_id: id }));
      return answer.total > 0 ? answer : undefined;
    }, 60_000);
    expect(changes.changes[0]).toMatchObject({ kind: 'added', url: u('/') });
    // A list monitor: `urls` instead of a seed (canonical and distinct); its run is a batch job.
    const list = await call('monitor_create', {
      name: `mcp-list-${kind}`,
      urls: [u('/'), u('/#top')],
      schema: SCHEMA,
      llm_config: llm(),
      schedule: { every: '1h' },
      paused: true,
    });
    expect(list.isError).toBeFalsy();
    expect(structured(list)).toMatchObject({ url: null, urls: [u('/')], url_count: 1 });
    const listRun = await call('monitor_run', { monitor_id: structured(list).id });
    expect(text(listRun).split('\n')[0]).toBe(`Run started: batch job ${String(structured(listRun).job_id)}.`);
    await waitFor(
      async () => ['completed', 'failed'].includes((await rest('GET', `/api/v1/jobs/${structured(listRun).job_id}`)).body.status),
      60_000,
    );
    const unknown = await call('monitor_run', { monitor_id: 'nope' });
    expect(unknown.isError).toBe(true);
    expect(structured(unknown)).toMatchObject({ status: 404 });
  });

  it('a bad argument is a tool error whose text is the problem detail, at the argument', async () => {
    const badUrl = await call('extract', { url: 'not a url', schema: SCHEMA });
    expect(badUrl.isError).toBe(true);
    expect(text(badUrl)).toMatch(/^Validation failed \(422\)/);
    expect(structured(badUrl)).toMatchObject({ status: 422, type: '/problems/validation-error' });
    expect(structured(badUrl).errors).toEqual([expect.objectContaining({ location: 'body.url' })]);

    const badPage = await call('job_results', { job_id: 'x', limit: 0, colour: 'red' });
    expect(badPage.isError).toBe(true);
    expect(
      structured(badPage)
        .errors.map((e: any) => e.location)
        .sort(),
    ).toEqual(['body.colour', 'body.limit']);

    const unknownField = await call('map', { url: u('/'), depth: 3 });
    expect(structured(unknownField).errors).toEqual([{ location: 'body.depth', message: 'unknown field' }]);

    // Unknown tools stay protocol errors (JSON-RPC), as the SDK makes them.
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("a key without the tool's scope gets a 403 tool error; another tenant's job is not found", async () => {
    const jobsOnly = await newKey(['jobs']);
    const scoped = await connect(kind, env.app.baseUrl, jobsOnly.key);
    try {
      const refused = await scoped.callTool({ name: 'extract', arguments: { url: u('/product/1'), schema: SCHEMA } });
      expect(refused.isError).toBe(true);
      expect(text(refused as CallToolResult)).toMatch(/^Insufficient scope \(403\): This endpoint needs the "extract" scope/i);
      const sites = (await scoped.callTool({ name: 'list_sites', arguments: {} })) as CallToolResult;
      expect(structured(sites)).toMatchObject({ status: 403 });
      const schemas = (await scoped.callTool({ name: 'job_results', arguments: { job_id: 'nope' } })) as CallToolResult;
      expect(structured(schemas)).toMatchObject({ status: 404 });
    } finally {
      await scoped.close();
    }

    const mine = (await rest('POST', '/api/v1/test-jobs', { body: { steps: 0, step_ms: 0 } })).body.id as string;
    const other = (await rest('POST', '/api/v1/users', { body: { name: `mcp-other-${kind}-${Date.now()}` } })).body.key.key as string;
    const foreign = await connect(kind, env.app.baseUrl, other);
    try {
      for (const tool of ['job_status', 'job_results', 'job_cancel']) {
        const answer = (await foreign.callTool({ name: tool, arguments: { job_id: mine } })) as CallToolResult;
        expect([tool, answer.isError, structured(answer).status]).toEqual([tool, true, 404]);
      }
    } finally {
      await foreign.close();
    }
  });

  it('a revoked key is refused', async () => {
    const key = await newKey();
    const revocable = await connect(kind, env.app.baseUrl, key.key);
    try {
      expect((await revocable.callTool({ name: 'list_schemas', arguments: {} })).isError).toBeFalsy();
      expect((await rest('DELETE', `/api/v1/keys/${key.id}`)).status).toBe(200);
      if (kind === 'http') {
        // The /mcp request itself is refused (401, problem+json): the SDK client raises it.
        await expect(revocable.callTool({ name: 'list_schemas', arguments: {} })).rejects.toThrow(/401|Unauthorized|revoked/i);
      } else {
        const refused = (await revocable.callTool({ name: 'list_schemas', arguments: {} })) as CallToolResult;
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(/^Unauthorized \(401\)/);
      }
    } finally {
      await revocable.close().catch(() => undefined);
    }
  });

  it('counts against the key’s rate limit as the REST API does: one per tool call (its route), one per other message', async () => {
    const key = await newKey();
    const remaining = async () =>
      Number((await http(env.app.baseUrl, 'GET', '/api/v1/jobs', { key: key.key })).headers.get('ratelimit-remaining'));
    const counted = await connect(kind, env.app.baseUrl, key.key);
    try {
      const before = await remaining();
      await counted.listTools();
      await counted.callTool({ name: 'list_schemas', arguments: {} });
      await counted.callTool({ name: 'job_status', arguments: { job_id: 'nope' } });
      const after = await remaining();
      // GET /jobs (1) + two tool calls (1 each), + tools/list (1) over HTTP (stdio answers it without a request).
      expect(before - after).toBe(kind === 'http' ? 4 : 3);
    } finally {
      await counted.close();
    }
  });

  if (kind === 'http') {
    it('refuses at the HTTP level with problem+json: no key, another method, a missing Accept, a body that is not MCP', async () => {
      const post = (body: unknown, headers: Record<string, string> = {}) =>
        fetch(`${env.app.baseUrl}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${env.app.adminKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...headers,
          },
          body: typeof body === 'string' ? body : JSON.stringify(body),
        });
      const problem = async (res: Response) => [res.status, res.headers.get('content-type'), ((await res.json()) as any).type];
      const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
      expect(await problem(await post(list, { authorization: '' }))).toEqual([
        401,
        expect.stringContaining('problem+json'),
        '/problems/unauthorized',
      ]);
      const get = await fetch(`${env.app.baseUrl}/mcp`, { headers: { authorization: `Bearer ${env.app.adminKey}` } });
      expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
      expect(await problem(await post(list, { accept: 'application/json' }))).toEqual([
        406,
        expect.stringContaining('problem+json'),
        '/problems/not-acceptable',
      ]);
      expect(await problem(await post({ hello: 'world' }))).toEqual([
        422,
        expect.stringContaining('problem+json'),
        '/problems/validation-error',
      ]);
      expect(await problem(await post(list, { 'mcp-protocol-version': '1999-01-01' }))).toEqual([
        400,
        expect.stringContaining('problem+json'),
        '/problems/bad-request',
      ]);
      expect(await problem(await post('{"jsonrpc": "2.0",'))).toEqual([
        400,
        expect.stringContaining('problem+json'),
        '/problems/bad-request',
      ]);
      expect(await problem(await post('x', { 'content-type': 'text/plain' }))).toEqual([
        415,
        expect.stringContaining('problem+json'),
        '/problems/unsupported-media-type',
      ]);
      // A tools/list over plain HTTP: an SSE answer carrying the JSON-RPC result.
      const listed = await post(list);
      expect([listed.status, listed.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/event-stream')]);
      expect(await listed.text()).toContain('"name":"job_results"');
    });
  }
}
