/**
 * Firecrawl's official JS SDK (@mendable/firecrawl-js, a dev dependency) and its MCP server (firecrawl-mcp)
 * driving Gleaner's /v2 (docs/firecrawl.md): every SDK method the compatible API answers, against the
 * playground and the local model server, and every answer checked against the /v2 OpenAPI document.
 */
import { join } from 'node:path';
import Firecrawl, { SdkError, type Document, type FormatOption } from '@mendable/firecrawl-js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import Ajv from 'ajv/dist/2020';
import type { ModelServer } from '../fixtures/model-server';
import type { Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';
import { ROOT } from './processes';

export interface FirecrawlEnv {
  /** The API the SDK talks to: the embedded app, or a cluster's API process. */
  app: Pick<RunningApp, 'baseUrl' | 'adminKey'>;
  /** Everything the deployment's processes logged so far. */
  logs: () => string;
  play: Playground;
  models: ModelServer;
}

const SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: 'string' }, sku: { type: 'string' } },
  required: ['name', 'price', 'sku'],
};

/** Every answer the SDK got, to check against the /v2 OpenAPI document at the end. */
interface Seen {
  method: string;
  url: string;
  status: number;
  body: unknown;
}

export function firecrawlSuite(get: () => FirecrawlEnv): void {
  // Its own block: its afterAll (unfinished jobs cancelled) runs before the deployment's, which stops the app.
  describe('Firecrawl clients', () => {
    let env: FirecrawlEnv;
    let firecrawl: Firecrawl;
    const seen: Seen[] = [];
    const u = (path: string, host = 'shop.test') => env.play.url(host, path);
    const sdkError = async (promise: Promise<unknown>): Promise<SdkError> => {
      try {
        await promise;
      } catch (error) {
        return error as SdkError;
      }
      throw new Error('expected the SDK call to fail');
    };

    beforeAll(async () => {
      env = get();
      firecrawl = new Firecrawl({ apiKey: env.app.adminKey, apiUrl: env.app.baseUrl });
      // The SDK's own axios instance: every answer is recorded for the document check.
      const axios = (
        firecrawl as unknown as {
          http: { instance: { interceptors: { response: { use: (ok: (r: any) => any, bad: (e: any) => any) => void } } } };
        }
      ).http.instance;
      axios.interceptors.response.use(
        (response) => {
          seen.push({ method: response.config.method, url: response.config.url, status: response.status, body: response.data });
          return response;
        },
        (error) => {
          if (error.response)
            seen.push({ method: error.config.method, url: error.config.url, status: error.response.status, body: error.response.data });
          return Promise.reject(error);
        },
      );
      // The model chain every json, summary and extract uses: the caller's stored key and chain (BYOK).
      const auth = { authorization: `Bearer ${env.app.adminKey}` };
      const key = await http(env.app.baseUrl, 'PUT', '/api/v1/llm/keys', {
        headers: auth,
        body: { provider: 'openai', is_enabled: true, api_key: 'sk-firecrawl', base_url: env.models.openaiBaseUrl },
      });
      expect(key.status).toBe(200);
      const chain = await http(env.app.baseUrl, 'PUT', '/api/v1/llm/chain', {
        headers: auth,
        body: { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] },
      });
      expect(chain.status).toBe(200);
    });

    // Jobs some tests start and do not wait for (a batch of two, a monitor's run): cancelled, and ended, before the
    // deployment stops (a crawl left running when an embedded app closes keeps Crawlee's timers, and jest, alive).
    afterAll(async () => {
      const auth = { authorization: `Bearer ${env.app.adminKey}` };
      const unfinished = async () =>
        (
          (await http(env.app.baseUrl, 'GET', '/api/v1/jobs?limit=100', { headers: auth })).body.jobs as Array<{
            id: string;
            status: string;
          }>
        ).filter((job) => job.status === 'pending' || job.status === 'running');
      for (const job of await unfinished()) await http(env.app.baseUrl, 'POST', `/api/v1/jobs/${job.id}/cancel`, { headers: auth });
      await waitFor(async () => ((await unfinished()).length === 0 ? true : null), 60_000, 250);
    });

    it('scrape: markdown, html, rawHtml, links, images and metadata in Firecrawl names; a Gleaner scrape job', async () => {
      const doc = await firecrawl.scrape(u('/product/3'), {
        formats: ['markdown', 'html', 'rawHtml', 'links', 'images'],
        onlyMainContent: false,
        origin: 'test',
        integration: 'jest',
      } as never);
      expect(doc.markdown).toContain('Widget 3');
      expect(doc.html).toContain('Widget 3');
      expect(doc.rawHtml).toContain('<html');
      expect(doc.links).toEqual(expect.arrayContaining([u('/catalog/page/1')]));
      expect(Array.isArray(doc.images)).toBe(true);
      expect(doc.metadata).toMatchObject({ sourceURL: u('/product/3'), url: u('/product/3'), statusCode: 200, creditsUsed: 1 });
      const job = await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${doc.metadata!.scrapeId}`, {
        headers: { authorization: `Bearer ${env.app.adminKey}` },
      });
      expect(job.body).toMatchObject({ type: 'scrape', status: 'completed' });
    });

    it('scrape with json (schema and prompt) and summary: the caller’s model chain fills them', async () => {
      const doc = await firecrawl.scrape(u('/product/4'), {
        formats: ['markdown', { type: 'json', schema: SCHEMA, prompt: 'The product on the page' }, 'summary'],
      });
      expect(doc.markdown).toContain('Widget 4');
      expect(doc.json).toMatchObject({ name: 'Widget 4', sku: 'SKU-0004' });
      expect(typeof doc.summary).toBe('string');
      expect(doc.metadata?.creditsUsed).toBe(5);
      // json is the scrape job's own json format (one fetch, its tokens on the scrape job).
      const job = await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${doc.metadata!.scrapeId}`, {
        headers: { authorization: `Bearer ${env.app.adminKey}` },
      });
      expect(job.body).toMatchObject({ type: 'scrape', status: 'completed' });
      expect(job.body.token_usage_input).toBeGreaterThan(0);
    });

    it('maxAge: the scrape keeps its page (a batch job); the next within maxAge is the archived copy (a reextract job, no request)', async () => {
      const path = '/product/11?fc=max-age';
      const url = u(path);
      const fetches = () => env.play.requestsTo('shop.test', path).length;
      const jobType = async (id: unknown) =>
        (await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${id}`, { headers: { authorization: `Bearer ${env.app.adminKey}` } })).body;
      const first = await firecrawl.scrape(url, { formats: ['markdown', 'html', 'links'], maxAge: 3_600_000 });
      expect(first.metadata).toMatchObject({ cacheState: 'miss', sourceURL: url, statusCode: 200 });
      expect(first.markdown).toContain('Widget 11');
      expect(fetches()).toBe(1);
      expect(await jobType(first.metadata!.scrapeId)).toMatchObject({ type: 'batch', status: 'completed' });
      const second = await firecrawl.scrape(url, { formats: ['markdown', 'html', 'links'], maxAge: 3_600_000 });
      expect(second.metadata).toMatchObject({ cacheState: 'hit', cachedAt: expect.any(String), sourceURL: url });
      expect({ markdown: second.markdown, html: second.html, links: second.links }).toEqual({
        markdown: first.markdown,
        html: first.html,
        links: first.links,
      });
      expect(fetches()).toBe(1);
      expect(await jobType(second.metadata!.scrapeId)).toMatchObject({ type: 'reextract', status: 'completed' });
      // Older than maxAge: fetched again (and kept again); without maxAge: a plain scrape job, kept nowhere.
      expect((await firecrawl.scrape(url, { formats: ['markdown'], maxAge: 1 })).metadata?.cacheState).toBe('miss');
      expect(fetches()).toBe(2);
      const plain = await firecrawl.scrape(url, { formats: ['markdown'] });
      expect(plain.metadata?.cacheState).toBe('miss');
      expect(await jobType(plain.metadata!.scrapeId)).toMatchObject({ type: 'scrape' });
    });

    it('changeTracking: the page against your previous archived copy of it (new, then changed with a git diff, or same)', async () => {
      const ticking = env.play.url('tick.test', '/news');
      const tracked: FormatOption[] = ['markdown', { type: 'changeTracking', modes: ['git-diff'] }];
      const first = await firecrawl.scrape(ticking, { formats: tracked });
      expect(first.changeTracking).toEqual({ previousScrapeAt: null, changeStatus: 'new', visibility: 'visible' });
      expect(first.markdown).toContain('Visit 1');
      const second = await firecrawl.scrape(ticking, { formats: tracked });
      expect(second.markdown).toContain('Visit 2');
      expect(second.changeTracking).toMatchObject({ changeStatus: 'changed', previousScrapeAt: expect.any(String), visibility: 'visible' });
      const diff = (second.changeTracking as { diff: { text: string } }).diff.text;
      expect(diff).toMatch(/^-.*Visit 1$/m);
      expect(diff).toMatch(/^\+.*Visit 2$/m);
      // The previous copy was converted from the archive: the site saw one request per scrape, not two.
      expect(env.play.requestsTo('tick.test', '/news')).toHaveLength(2);
      const still = u('/product/12?fc=tracked');
      await firecrawl.scrape(still, { formats: ['markdown', 'changeTracking'] });
      const same = await firecrawl.scrape(still, { formats: ['markdown', 'changeTracking'] });
      expect(same.changeTracking).toEqual({ previousScrapeAt: expect.any(String), changeStatus: 'same', visibility: 'visible' });
      // A tag is its own history: the untagged copies above are not its previous copy.
      const tagged: FormatOption[] = ['markdown', { type: 'changeTracking', tag: 'prices' }];
      expect((await firecrawl.scrape(still, { formats: tagged })).changeTracking).toMatchObject({ changeStatus: 'new' });
      const taggedAgain = await firecrawl.scrape(still, { formats: tagged });
      expect(taggedAgain.changeTracking).toMatchObject({ changeStatus: 'same', previousScrapeAt: expect.any(String) });
      expect(
        (await firecrawl.scrape(still, { formats: ['markdown', { type: 'changeTracking', tag: 'other' }] })).changeTracking,
      ).toMatchObject({
        changeStatus: 'new',
      });
      // The json mode: both copies extracted with the schema by the caller's model chain, the fields compared.
      const jsonMode: FormatOption[] = ['markdown', { type: 'changeTracking', modes: ['json'], schema: SCHEMA, tag: 'fields' }];
      const calls = env.models.requests.length;
      expect((await firecrawl.scrape(still, { formats: jsonMode })).changeTracking).toEqual({
        previousScrapeAt: null,
        changeStatus: 'new',
        visibility: 'visible',
      });
      const fields = await firecrawl.scrape(still, { formats: jsonMode });
      expect(fields.changeTracking).toEqual({
        previousScrapeAt: expect.any(String),
        changeStatus: 'same',
        visibility: 'visible',
        json: {},
      });
      expect(fields.json).toBeUndefined(); // the fields compared are not the json format, which was not asked for
      // Three extractions: each fetch, and the previous copy re-extracted for the second comparison.
      const extracted = env.models.requests.slice(calls).filter((r) => r.userText.includes('/product/12?fc=tracked'));
      expect(extracted).toHaveLength(3);
      expect(
        await sdkError(
          firecrawl.scrape(still, { formats: ['markdown', { type: 'changeTracking', modes: ['json'], prompt: 'the price' }] }),
        ),
      ).toMatchObject({ status: 400, code: 'NOT_SUPPORTED' });
    });

    it('refuses what it does not do with a 400 NOT_SUPPORTED naming it, and validation errors in Firecrawl names', async () => {
      const branding = await sdkError(firecrawl.scrape(u('/'), { formats: ['branding'] }));
      expect(branding).toBeInstanceOf(SdkError);
      expect(branding).toMatchObject({ status: 400, code: 'NOT_SUPPORTED' });
      expect(branding.message).toMatch(/formats\[0\].*branding/);
      const stealth = await sdkError(firecrawl.scrape(u('/'), { proxy: 'stealth' }));
      expect(stealth).toMatchObject({ status: 400, code: 'NOT_SUPPORTED' });
      expect(stealth.message).toMatch(/proxy/);
      const actions = await sdkError(firecrawl.scrape(u('/'), { actions: [{ type: 'click', selector: 'a' }] }));
      expect(actions.message).toMatch(/actions/);
      const bad = await sdkError(firecrawl.startCrawl(u('/'), { limit: 0 }));
      expect(bad).toMatchObject({ status: 400 });
      expect(bad.message).toMatch(/limit/);
    });

    it('answers search, agent, browser, parse and feedback with a 501 NOT_SUPPORTED', async () => {
      for (const call of [
        () => firecrawl.search('widgets'),
        () => firecrawl.startAgent({ prompt: 'find widgets' }),
        () => firecrawl.browser(),
        () => firecrawl.listBrowsers(),
        () => firecrawl.interact('01J00000000000000000000000', { code: '1' }),
      ]) {
        const error = await sdkError(call());
        expect(error).toMatchObject({ status: 501, code: 'NOT_SUPPORTED' });
        expect(error.message).toMatch(/not supported by this server/);
      }
      // /v2/parse takes a file upload (firecrawl-py sends multipart/form-data): 501 all the same, after the key.
      const upload = () => {
        const form = new FormData();
        form.append('file', new Blob(['<html></html>'], { type: 'text/html' }), 'page.html');
        return form;
      };
      const parse = await fetch(`${env.app.baseUrl}/v2/parse`, {
        method: 'POST',
        headers: { authorization: `Bearer ${env.app.adminKey}` },
        body: upload(),
      });
      expect({ status: parse.status, body: await parse.json() }).toMatchObject({
        status: 501,
        body: { success: false, code: 'NOT_SUPPORTED' },
      });
      expect((await fetch(`${env.app.baseUrl}/v2/parse`, { method: 'POST', body: upload() })).status).toBe(401);
    });

    it('keys: an unknown key is a 401, a key without the crawl scope a 403, in Firecrawl’s shape', async () => {
      const stranger = new Firecrawl({ apiKey: 'glk_unknown0000000000000000000000000000000', apiUrl: env.app.baseUrl });
      expect(await sdkError(stranger.map(u('/')))).toMatchObject({ status: 401 });
      const created = await http(env.app.baseUrl, 'POST', '/api/v1/keys', {
        headers: { authorization: `Bearer ${env.app.adminKey}` },
        body: { name: `fc-extract-${Date.now()}`, scopes: ['extract'] },
      });
      const scoped = new Firecrawl({ apiKey: (created.body as { key: string }).key, apiUrl: env.app.baseUrl });
      expect((await scoped.scrape(u('/product/1'))).markdown).toContain('Widget 1');
      expect(await sdkError(scoped.startCrawl(u('/')))).toMatchObject({ status: 403, code: 'INSUFFICIENT_SCOPE' });
    });

    it('crawl waiter: a Gleaner crawl job, its pages as Documents', async () => {
      const job = await firecrawl.crawl(u('/catalog/page/1'), {
        limit: 4,
        crawlEntireDomain: true,
        sitemap: 'skip',
        scrapeOptions: { formats: ['markdown', 'links'] },
        pollInterval: 1,
        timeout: 90,
      });
      expect(job.status).toBe('completed');
      expect(job.completed).toBe(4);
      expect(job.data).toHaveLength(4);
      for (const doc of job.data) {
        expect(doc.markdown?.length).toBeGreaterThan(0);
        expect(Array.isArray(doc.links)).toBe(true);
        expect(doc.metadata?.scrapeId).toBe(job.id);
      }
      const listed = await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${job.id}`, {
        headers: { authorization: `Bearer ${env.app.adminKey}` },
      });
      expect(listed.body).toMatchObject({ type: 'crawl', status: 'completed', page_count: 4 });
    });

    it('crawl status pages with next: the SDK follows it, or stops with autoPaginate false', async () => {
      const started = await firecrawl.startCrawl(u('/', 'big.test') + '?size=150', { limit: 120, maxDiscoveryDepth: 3, sitemap: 'skip' });
      await waitFor(
        async () => ((await firecrawl.getCrawlStatus(started.id, { autoPaginate: false })).status === 'completed' ? true : null),
        120_000,
        500,
      );
      const first = await firecrawl.getCrawlStatus(started.id, { autoPaginate: false });
      expect(first.data).toHaveLength(100);
      expect(first.next).toContain(`/v2/crawl/${started.id}?skip=100`);
      const all = await firecrawl.getCrawlStatus(started.id);
      expect(all.data).toHaveLength(120);
      expect(new Set(all.data.map((d) => d.metadata?.url)).size).toBe(120);
      expect(all.next).toBeNull();
    });

    it('watcher over WebSocket (the key as subprotocol, not echoed): documents, then done', async () => {
      expect(typeof WebSocket).toBe('function');
      const started = await firecrawl.startCrawl(u('/catalog/page/1'), { limit: 3, crawlEntireDomain: true, sitemap: 'skip' });
      const watcher = firecrawl.watcher(started.id, { kind: 'crawl', pollInterval: 30, timeout: 90 });
      const documents: Document[] = [];
      watcher.on('document', (doc: Document) => documents.push(doc));
      const done = new Promise<{ status: string }>((resolve) => watcher.on('done', resolve));
      await watcher.start();
      expect((await done).status).toBe('completed');
      expect(documents).toHaveLength(3);
      // Served by the socket, not the polling fallback: no status read was made (the interval is 30 s).
      expect(seen.filter((s) => s.url?.includes(`/v2/crawl/${started.id}`))).toHaveLength(0);
    });

    it("watcher's polling fallback (no WebSocket in the runtime) gets the same documents", async () => {
      const started = await firecrawl.startCrawl(u('/catalog/page/2'), { limit: 2, crawlEntireDomain: true, sitemap: 'skip' });
      const real = globalThis.WebSocket;
      // A runtime whose WebSocket cannot connect (the SDK then polls); a fresh copy of the SDK, since the loaded
      // one keeps the WebSocket class it found first.
      (globalThis as { WebSocket?: unknown }).WebSocket = class {
        constructor() {
          throw new Error('no WebSocket here');
        }
      };
      try {
        let Fresh!: typeof Firecrawl;
        jest.isolateModules(() => {
          Fresh = jest.requireActual<{ default: typeof Firecrawl }>('@mendable/firecrawl-js').default;
        });
        const client = new Fresh({ apiKey: env.app.adminKey, apiUrl: env.app.baseUrl });
        let polls = 0;
        (
          client as unknown as { http: { instance: { interceptors: { request: { use: (f: (c: any) => any) => void } } } } }
        ).http.instance.interceptors.request.use((config) => {
          if (String(config.url).includes(`/v2/crawl/${started.id}`)) polls++;
          return config;
        });
        const watcher = client.watcher(started.id, { kind: 'crawl', pollInterval: 1, timeout: 90 });
        const documents: Document[] = [];
        watcher.on('document', (doc: Document) => documents.push(doc));
        const done = new Promise<{ status: string }>((resolve) => watcher.on('done', resolve));
        await watcher.start();
        expect((await done).status).toBe('completed');
        expect(documents).toHaveLength(2);
        expect(polls).toBeGreaterThan(0);
      } finally {
        globalThis.WebSocket = real;
      }
    });

    it('watcher refuses a bad key with an error message', async () => {
      const unknownKey = 'glk_unknown0000000000000000000000000000000';
      const stranger = new Firecrawl({ apiKey: unknownKey, apiUrl: env.app.baseUrl });
      const watcher = stranger.watcher('01J00000000000000000000000', { kind: 'crawl', timeout: 10 });
      const failed = new Promise<{ error: string }>((resolve) => watcher.on('error', resolve));
      await watcher.start();
      expect((await failed).error).toMatch(/API key/);
      expect((await failed).error).not.toContain(unknownKey);
      watcher.close();
    });

    it('watcher subprotocol: the key offered is the one selected (the only place a key is echoed, docs/security.md)', async () => {
      const started = await firecrawl.startCrawl(u('/catalog/page/4'), { limit: 1, sitemap: 'skip' });
      const url = `${env.app.baseUrl.replace(/^http/, 'ws')}/v2/crawl/${started.id}`;
      const open = (protocols: string | string[], headers?: Record<string, string>) =>
        new Promise<{ protocol: string; first: { type: string; error?: string } }>((resolve, reject) => {
          // Node's WebSocket (undici) takes headers beside the protocols, as firecrawl-py's client sends them.
          const ws = new WebSocket(url, headers ? { protocols, headers } : protocols);
          ws.onmessage = (event) => {
            resolve({ protocol: ws.protocol, first: JSON.parse(String(event.data)) });
            ws.close();
          };
          ws.onerror = () => reject(new Error('the handshake failed'));
        });
      const sdkLike = await open(env.app.adminKey);
      expect(sdkLike.protocol).toBe(env.app.adminKey);
      expect(sdkLike.first.type).toBe('catchup');
      // A client that sends the key as a header offers no subprotocol and gets none.
      const pyLike = await open([], { authorization: `Bearer ${env.app.adminKey}` });
      expect(pyLike.protocol).toBe('');
      expect(pyLike.first.type).toBe('catchup');
      // The status read of the same path (a plain GET) carries no key anywhere.
      const plain = await fetch(`${env.app.baseUrl}/v2/crawl/${started.id}`, { headers: { authorization: `Bearer ${env.app.adminKey}` } });
      const text = `${JSON.stringify([...plain.headers])}${await plain.text()}`;
      expect(plain.status).toBe(200);
      expect(text).not.toContain(env.app.adminKey);
    });

    it('cancel, active crawls and errors', async () => {
      // Cancelled while its seed is in flight (held at a gate), then the gate opens: the page in flight comes back
      // and the crawl ends. (A cancel that lands before the owner's Crawlee pool runs, with a page in flight whose
      // outcome never comes: libs/crawl crawl-actor.spec.ts.)
      const gate = `fc-cancel-${Date.now()}`;
      const slow = await firecrawl.startCrawl(u(`/gate/${gate}`), { limit: 6 });
      await waitFor(async () => env.play.held(gate) > 0, 60_000, 100);
      const active = await firecrawl.getActiveCrawls();
      expect(active.crawls.map((c) => c.id)).toContain(slow.id);
      expect(await firecrawl.cancelCrawl(slow.id)).toBe(true);
      env.play.openGate(gate);
      expect((await firecrawl.getCrawlStatus(slow.id)).status).toBe('cancelled');
      expect(await sdkError(firecrawl.cancelCrawl(slow.id))).toMatchObject({ status: 409 });

      const home = await firecrawl.crawl(u('/'), { limit: 10, maxDiscoveryDepth: 1, sitemap: 'skip', pollInterval: 1, timeout: 120 });
      expect(home.status).toBe('completed');
      const errors = await firecrawl.getCrawlErrors(home.id);
      expect(Array.isArray(errors.errors)).toBe(true);
      expect(errors.robotsBlocked).toEqual([u('/private/secret')]);
      expect(await sdkError(firecrawl.getCrawlStatus('01J00000000000000000000000'))).toMatchObject({ status: 404 });
    });

    it('params preview: the options this server would use, and that prompts are not read', async () => {
      const preview = await firecrawl.crawlParamsPreview(u('/'), 'only the catalog');
      expect(preview).toMatchObject({ url: u('/'), limit: 10000, warning: expect.stringMatching(/prompt/) });
    });

    it('batch scrape: waiter, status, errors, cancel; invalid URLs left out on request', async () => {
      const job = await firecrawl.batchScrape([u('/product/1'), u('/product/2'), u('/missing-page')], {
        options: { formats: ['markdown'] },
        pollInterval: 1,
        timeout: 90,
      });
      expect(job.status).toBe('completed');
      expect(job.data.map((d) => d.metadata?.url).sort()).toEqual([u('/product/1'), u('/product/2')]);
      const errors = await firecrawl.getBatchScrapeErrors(job.id);
      expect(errors.errors.map((e) => e.url)).toEqual([u('/missing-page')]);
      expect(errors.errors[0]).toMatchObject({ id: expect.any(String), code: 'http_error', error: expect.any(String) });
      const started = await firecrawl.startBatchScrape([u('/product/5'), 'not a url'], { ignoreInvalidURLs: true, maxConcurrency: 2 });
      expect(started.invalidURLs).toEqual(['not a url']);
      const status = await firecrawl.getBatchScrapeStatus(started.id);
      expect(['scraping', 'completed']).toContain(status.status);
      const slow = await firecrawl.startBatchScrape([1, 2, 3, 4, 5].map((n) => u(`/s/${n}`, 'slow.test')));
      expect(await firecrawl.cancelBatchScrape(slow.id)).toBe(true);
    });

    it('batch scrape: json beside markdown, each Document with both (Gleaner’s json page format)', async () => {
      const job = await firecrawl.batchScrape([u('/product/1'), u('/product/2')], {
        options: { formats: ['markdown', { type: 'json', schema: SCHEMA, prompt: 'The product on the page' }] },
        pollInterval: 1,
        timeout: 90,
      });
      expect(job.status).toBe('completed');
      expect(job.data).toHaveLength(2);
      for (const doc of job.data) {
        const id = doc.metadata?.url === u('/product/1') ? 1 : 2;
        expect(doc.markdown).toContain(`Widget ${id}`);
        expect(doc.json).toMatchObject({ name: `Widget ${id}`, sku: `SKU-000${id}` });
      }
    });

    it('includeTags and excludeTags: Gleaner’s tag filters on scrape, batch and crawl pages; a bad selector is a 400 naming it', async () => {
      const doc = await firecrawl.scrape(u('/product/5'), {
        formats: ['markdown'],
        includeTags: ['.related', 'h1'],
        excludeTags: ['a[href$="/product/7"]'],
      });
      expect(doc.markdown).toContain('# Widget 5');
      expect(doc.markdown).toContain('Related 6');
      expect(doc.markdown).not.toMatch(/Related 7|Price:|SKU:/);
      const batch = await firecrawl.batchScrape([u('/product/1')], {
        options: { formats: ['markdown'], excludeTags: ['.related', 'header'] },
        pollInterval: 1,
        timeout: 90,
      });
      expect(batch.data[0].markdown).toContain('SKU-0001');
      expect(batch.data[0].markdown).not.toContain('Related 2');
      // A json format with tag filters reads the filtered content (Gleaner’s json page format): only the h1 here.
      const before = env.models.requests.length;
      const crawl = await firecrawl.crawl(u('/product/2'), {
        limit: 1,
        sitemap: 'skip',
        scrapeOptions: { formats: ['markdown', { type: 'json', schema: SCHEMA }], includeTags: ['h1'] },
        pollInterval: 1,
        timeout: 90,
      });
      expect(crawl.data).toHaveLength(1);
      expect(crawl.data[0].markdown?.trim()).toBe('# Widget 2');
      const read = env.models.requests.slice(before).filter((r) => r.userText.includes(`Page URL: ${u('/product/2')}`));
      expect(read.length).toBeGreaterThan(0);
      for (const request of read) expect(request.userText).not.toContain('SKU-0002');
      const bad = await sdkError(firecrawl.scrape(u('/'), { includeTags: ['div['] }));
      expect(bad).toMatchObject({ status: 400 });
      expect(bad.message).toMatch(/includeTags/);
      const extract = await sdkError(
        firecrawl.startExtract({ urls: [u('/product/1')], schema: SCHEMA, scrapeOptions: { includeTags: ['h1'] } }),
      );
      expect(extract).toMatchObject({ status: 400, code: 'NOT_SUPPORTED' });
    });

    it('json and extract with a prompt alone: the model proposes each page’s schema (scrape, batch scrape, extract)', async () => {
      const since = env.models.requests.length;
      const proposals = () => env.models.requests.slice(since).filter((r) => r.schema?.properties?.suggested_schema).length;
      const doc = await firecrawl.scrape(u('/product/9'), { formats: ['markdown', { type: 'json', prompt: 'The product’s name' }] });
      expect(doc.markdown).toContain('Widget 9');
      // The stand-in model proposes {title, description} for a page without a list (test/fixtures/model-server).
      expect(doc.json).toMatchObject({ title: 'Widget 9' });
      expect(doc.metadata?.creditsUsed).toBe(5);
      expect(proposals()).toBe(1);
      const batch = await firecrawl.batchScrape([u('/product/9'), u('/product/10')], {
        options: { formats: [{ type: 'json', prompt: 'The product’s name' }] },
        pollInterval: 1,
        timeout: 90,
      });
      expect(batch.status).toBe('completed');
      expect(batch.data.map((d) => (d.json as { title: string }).title).sort()).toEqual(['Widget 10', 'Widget 9']);
      expect(proposals()).toBe(3);
      const answer = await firecrawl.extract({ urls: [u('/product/12')], prompt: 'The product’s name', pollInterval: 1, timeout: 90 });
      expect(answer).toMatchObject({ success: true, status: 'completed', data: { title: 'Widget 12' } });
      expect(proposals()).toBe(4);
      // Where fields are compared by one schema (a monitor), a prompt alone stays a 400.
      const monitor = await sdkError(
        firecrawl.createMonitor({
          name: 'prompt only',
          schedule: { text: 'hourly' },
          targets: [{ type: 'scrape', urls: [u('/product/1')], scrapeOptions: { formats: [{ type: 'json', prompt: 'The price' }] } }],
        }),
      );
      expect(monitor).toMatchObject({ status: 400, code: 'NOT_SUPPORTED', message: expect.stringMatching(/compared by one schema/) });
    });

    it('map: links with titles; sitemap only', async () => {
      const map = await firecrawl.map(u('/'), { limit: 20 });
      expect(map.links.length).toBeGreaterThan(3);
      expect(map.links.map((l) => l.url)).toContain(u('/catalog/page/1'));
      const fromSitemaps = await firecrawl.map(u('/'), { sitemap: 'only', limit: 500 });
      expect(fromSitemaps.links.length).toBeGreaterThan(0);
    });

    it('extract: a batch job with the schema, its pages merged into one answer', async () => {
      const answer = await firecrawl.extract({
        urls: [u('/product/6')],
        schema: SCHEMA,
        prompt: 'The product',
        pollInterval: 1,
        timeout: 90,
      });
      expect(answer).toMatchObject({ success: true, status: 'completed', data: { name: 'Widget 6', sku: 'SKU-0006' } });
      const started = await firecrawl.startExtract({
        urls: [u('/product/7'), u('/product/8')],
        schema: { type: 'object', properties: { products: { type: 'array', items: SCHEMA } } },
      });
      const done = await waitFor(
        async () => {
          const status = await firecrawl.getExtractStatus(started.id!);
          return status.status === 'completed' ? status : null;
        },
        90_000,
        500,
      );
      expect(done.data).toHaveProperty('products');
      expect(await sdkError(firecrawl.startExtract({ urls: [u('/*')], schema: SCHEMA }))).toMatchObject({
        status: 400,
        code: 'NOT_SUPPORTED',
      });
    });

    it('monitors: create, list, get, update (pause), run, checks, check, delete', async () => {
      const monitor = await firecrawl.createMonitor({
        name: 'Widgets',
        schedule: { text: 'every 30 minutes' },
        targets: [
          { type: 'scrape', urls: [u('/product/1'), u('/product/2')], scrapeOptions: { formats: [{ type: 'json', schema: SCHEMA }] } },
        ],
      });
      expect(monitor).toMatchObject({ name: 'Widgets', status: 'active', targets: [{ type: 'scrape' }] });
      expect((await firecrawl.listMonitors()).map((m) => m.id)).toContain(monitor.id);
      expect((await firecrawl.getMonitor(monitor.id)).id).toBe(monitor.id);
      const paused = await firecrawl.updateMonitor(monitor.id, { status: 'paused', name: 'Widgets (paused)' });
      expect(paused).toMatchObject({ status: 'paused', name: 'Widgets (paused)' });
      // The first run is due at once (its baseline) unless paused first; wait for it, or run now.
      const check = await waitFor(
        async () => {
          const checks = await firecrawl.listMonitorChecks(monitor.id);
          if (checks.some((c) => c.status === 'completed')) return checks.find((c) => c.status === 'completed')!;
          if (!checks.some((c) => c.status === 'running' || c.status === 'queued'))
            await firecrawl.runMonitor(monitor.id).catch(() => undefined);
          return null;
        },
        90_000,
        500,
      );
      expect(check.summary.new + check.summary.same + check.summary.changed).toBeGreaterThan(0);
      const detail = await firecrawl.getMonitorCheck(monitor.id, check.id);
      expect(detail.id).toBe(check.id);
      expect(Array.isArray(detail.pages)).toBe(true);
      expect(await firecrawl.deleteMonitor(monitor.id)).toBe(true);
      expect(await sdkError(firecrawl.getMonitor(monitor.id))).toMatchObject({ status: 404 });
      const markdownOnly = await sdkError(
        firecrawl.createMonitor({ name: 'x', schedule: { cron: '0 * * * *' }, targets: [{ type: 'crawl', url: u('/') }] }),
      );
      expect(markdownOnly).toMatchObject({ status: 400, code: 'NOT_SUPPORTED' });
    });

    it('usage and queue: credits (pages), tokens, history, queue status, concurrency from Gleaner’s own usage', async () => {
      const credits = await firecrawl.getCreditUsage();
      expect(credits.remainingCredits).toBeGreaterThan(0);
      const tokens = await firecrawl.getTokenUsage();
      expect(tokens.remainingTokens).toBeGreaterThan(0);
      const history = await firecrawl.getCreditUsageHistorical();
      expect(history.periods.reduce((n, p) => n + p.creditsUsed, 0)).toBeGreaterThan(0);
      const tokenHistory = await firecrawl.getTokenUsageHistorical(true);
      expect(tokenHistory.periods.reduce((n, p) => n + p.tokensUsed, 0)).toBeGreaterThan(0);
      const queue = await firecrawl.getQueueStatus();
      expect(queue).toMatchObject({ success: true, maxConcurrency: expect.any(Number) });
      const concurrency = await firecrawl.getConcurrency();
      expect(concurrency.maxConcurrency).toBeGreaterThan(0);
    });

    it('firecrawl-mcp (self-hosted setting: FIRECRAWL_API_URL) calls its scrape, map, crawl and extract tools on Gleaner', async () => {
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [join(ROOT, 'node_modules', 'firecrawl-mcp', 'dist', 'index.js')],
        env: { PATH: process.env.PATH ?? '', FIRECRAWL_API_URL: env.app.baseUrl, FIRECRAWL_API_KEY: env.app.adminKey },
        stderr: 'pipe',
      });
      // Read, so the server's stderr pipe is drained and closes with it (an unread pipe keeps jest from exiting).
      let mcpLog = '';
      transport.stderr?.on('data', (chunk: Buffer) => (mcpLog += chunk.toString()));
      const client = new Client({ name: 'gleaner-e2e', version: '1.0.0' });
      await client.connect(transport);
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        expect(tools).toEqual(expect.arrayContaining(['firecrawl_scrape', 'firecrawl_map', 'firecrawl_crawl']));
        const call = async (name: string, args: Record<string, unknown>) =>
          (await client.callTool({ name, arguments: args }, undefined, { timeout: 120_000 })) as CallToolResult;
        const text = (result: CallToolResult) =>
          (result.content as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');

        const scraped = await call('firecrawl_scrape', { url: u('/product/9'), formats: ['markdown'] });
        expect(scraped.isError).toBeFalsy();
        expect(text(scraped)).toContain('Widget 9');
        // Extraction through MCP: scrape's json format (the MCP's extract tool is retired in favour of it).
        const extracted = await call('firecrawl_scrape', { url: u('/product/10'), formats: ['json'], jsonOptions: { schema: SCHEMA } });
        expect(extracted.isError).toBeFalsy();
        expect(text(extracted)).toContain('SKU-0010');
        const prompted = await call('firecrawl_scrape', {
          url: u('/product/11'),
          formats: ['json'],
          jsonOptions: { prompt: 'The product’s name' },
        });
        expect(prompted.isError).toBeFalsy();
        expect(text(prompted)).toContain('Widget 11');
        const mapped = await call('firecrawl_map', { url: u('/'), limit: 10 });
        expect(text(mapped)).toContain(u('/catalog/page/1'));
        const crawled = await call('firecrawl_crawl', { url: u('/catalog/page/3'), limit: 2 });
        expect(crawled.isError).toBeFalsy();
        expect(text(crawled)).toContain('"completed"');
        const retired = await call('firecrawl_extract', { urls: [u('/product/1')], schema: SCHEMA });
        expect(retired.isError).toBe(true);
        expect(mcpLog).not.toContain(env.app.adminKey);
      } finally {
        await client.close();
      }
    });

    it('no key reached a log line (the watcher’s subprotocol included)', () => {
      expect(env.logs().length).toBeGreaterThan(0);
      expect(env.logs()).not.toContain(env.app.adminKey);
      expect(env.logs()).not.toContain(env.app.adminKey.slice(4));
    });

    it('every answer the SDK got matches the /v2 OpenAPI document (the contract)', async () => {
      const doc = (await http(env.app.baseUrl, 'GET', '/v2/openapi.json')).body;
      const { Validator } = await import('@seriousme/openapi-schema-validator');
      expect((await new Validator().validate(doc)).valid).toBe(true);
      const ajv = new Ajv({ strict: false, allErrors: true });
      ajv.addSchema({ $id: 'doc', components: doc.components });
      // Literal paths first: /v2/crawl/active is not /v2/crawl/{id}.
      const routes = Object.entries(doc.paths as Record<string, Record<string, any>>)
        .sort(([a], [b]) => Number(a.includes('{')) - Number(b.includes('{')))
        .flatMap(([path, ops]) =>
          Object.entries(ops).map(([method, op]) => ({ method, op, re: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) })),
        );
      expect(seen.length).toBeGreaterThan(40);
      for (const answer of seen) {
        const path = new URL(answer.url, env.app.baseUrl).pathname;
        const route = routes.find((r) => r.method === answer.method && r.re.test(path));
        expect({ path, method: answer.method, documented: Boolean(route) }).toEqual({ path, method: answer.method, documented: true });
        const response = route!.op.responses[String(answer.status)];
        expect({ path, status: answer.status, documented: Boolean(response) }).toEqual({ path, status: answer.status, documented: true });
        const schema = JSON.parse(
          JSON.stringify(response.content['application/json'].schema).replace(/"#\/components/g, '"doc#/components'),
        );
        const valid = ajv.validate(schema, answer.body);
        expect({ path, status: answer.status, errors: valid ? null : ajv.errors }).toEqual({ path, status: answer.status, errors: null });
      }
    });
  });
}
