/**
 * POST /batch/extract end to end: a URL list extracted on the crawl engine (politeness, page workers,
 * crawl map, results, events, webhooks, cost cap), JSON and streamed list bodies, and every refusal.
 * Run on both deployments by batch.e2e-spec.ts.
 */
import type { ModelServer } from '../fixtures/model-server';
import { AUTH_SITE_SECRETS, SHOP_PRODUCTS, product, type Playground } from '../fixtures/playground/playground';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import type { RunningApp } from './embedded-app';
import { http, readSse, waitFor } from './helpers';

export interface BatchEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
  receiver: WebhookReceiver;
  /** GLEANER_BATCH_MAX_URLS of the app. */
  maxUrls: number;
}

const SCHEMA = { name: 'string', price: 'string', sku: 'string' };

export function batchSuite(getEnv: () => BatchEnv): void {
  let env: BatchEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-batch-test', base_url: env.models.openaiBaseUrl });
  const batch = (body: Record<string, unknown>) =>
    call('POST', '/api/v1/batch/extract', { body: { schema: SCHEMA, llm_config: llm(), ...body } });
  const finished = (jobId: string): Promise<any> =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 120_000);
  const mapOf = async (jobId: string) => (await call('GET', `/api/v1/jobs/${jobId}/crawl-map`)).body;
  const pageRequests = (host: string, since: number) =>
    env.play.requests.filter((r) => r.host === host && r.at >= since && r.path !== '/robots.txt');

  beforeAll(() => {
    env = getEnv();
  });

  it('extracts each URL once (duplicates removed and reported), follows no link, fails forbidden and missing pages alone', async () => {
    const since = Date.now();
    const u = (path: string, host = 'shop.test') => env.play.url(host, path);
    const urls = [
      u('/product/1'),
      u('/product/2'),
      u('/product/%31'), // the same page as /product/1
      u('/p/1', 'h1.test'),
      `http://SHOP.TEST:${env.play.port}/product/2#reviews`, // the same page as /product/2
      'http://10.1.2.3/private', // refused by the address guard: fails alone
      u('/missing-page'),
      u('/product/3'),
    ];
    const secret = 'batch-webhook-secret';
    const started = await batch({ urls, options: { concurrency: 3 }, webhook: { url: `${env.receiver.url}/ok`, secret } });
    expect(started.status).toBe(202);
    expect(started.headers.get('location')).toBe(started.body.status_url);
    expect(started.body).toMatchObject({
      status: 'pending',
      url_count: 6,
      duplicate_count: 2,
      duplicates: [
        { index: 2, url: urls[2], first_index: 0 },
        { index: 4, url: urls[4], first_index: 1 },
      ],
    });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ type: 'batch', status: 'completed', page_count: 4, failed_count: 2, urls_queued: 6 });
    expect(job.options).toMatchObject({ max_depth: 0, max_pages: 6, concurrency: 3, same_domain_only: false, use_sitemap: false });
    expect(job.pages_by_method).toEqual({ model: 4, selectors: 0, mixed: 0, scrape: 0 });

    const items = (await call('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    expect(items).toHaveLength(6);
    for (const id of [1, 2, 3]) {
      const item = items.find((i) => i.url === u(`/product/${id}`));
      expect(item).toMatchObject({ status: 'completed', data: { name: product(id).name, sku: product(id).sku } });
    }
    expect(items.find((i) => i.url === 'http://10.1.2.3/private')).toMatchObject({ status: 'failed', error_category: 'ssrf_blocked' });
    expect(items.find((i) => i.url === u('/missing-page'))).toMatchObject({ status: 'failed', error_category: 'http_error' });

    // The map lists the list's URLs in list order, each `via: list` with its index; no link was followed.
    const m = await mapOf(job.id);
    expect(m).toMatchObject({ total: 6, completed: 4, failed: 2, skipped: 0, max_depth: 0 });
    expect(m.entries.map((e: any) => [e.via, e.list_index, e.depth])).toEqual([0, 1, 2, 3, 4, 5].map((i) => ['list', i, 0]));
    const fetched = pageRequests('shop.test', since).map((r) => r.path);
    expect(fetched.sort()).toEqual(['/missing-page', '/product/1', '/product/2', '/product/3']);
    expect(pageRequests('h1.test', since).map((r) => r.path)).toEqual(['/p/1']);

    // One result event per URL and one complete; webhooks: started, a page each, completed.
    const stream = await readSse(`${env.app.baseUrl}/api/v1/jobs/${job.id}/stream`, { key: env.app.adminKey });
    expect(stream.events.filter((e) => e.event === 'result')).toHaveLength(6);
    expect(
      stream.events
        .filter((e) => e.event === 'error')
        .map((e) => e.data.error_category)
        .sort(),
    ).toEqual(['http_error', 'ssrf_blocked']);
    expect(stream.events.filter((e) => e.event === 'complete')).toHaveLength(1);
    const hooks = await waitFor(async () => {
      const got = env.receiver.requests.filter((r) => r.json?.job_id === job.id);
      return got.some((r) => r.json.type === 'job.completed') ? got : null;
    });
    expect(hooks.map((r) => r.json.type)).toEqual(['job.started', ...Array(6).fill('job.page'), 'job.completed']);
  });

  it('reads a text/plain list (comments and blank lines skipped) with the schema and options by saved ids', async () => {
    const key = await call('PUT', '/api/v1/llm/keys', {
      body: { provider: 'openai', is_enabled: true, api_key: 'sk-stored', base_url: env.models.openaiBaseUrl },
    });
    expect(key.status).toBe(200);
    expect((await call('PUT', '/api/v1/llm/chain', { body: { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] } })).status).toBe(200);
    const schema = await call('POST', '/api/v1/schemas', {
      body: { name: `batch-${Date.now()}`, schema_yaml: 'name: string\nsku: string\n', visibility: 'private' },
    });
    const site = await call('POST', '/api/v1/sites', {
      body: { url: env.play.url('shop.test', '/'), crawl_options: { concurrency: 2, delay_ms: 10 } },
    });
    expect([schema.status, site.status]).toEqual([201, 201]);
    const ids = Array.from({ length: 12 }, (_, i) => i + 10);
    const text = ['# products', '', ...ids.map((id) => env.play.url('shop.test', `/product/${id}`)), ''].join('\r\n');
    const started = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}&site_id=${site.body.id}`, {
      rawBody: text,
      headers: { 'content-type': 'text/plain; charset=utf-8' },
    });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ url_count: 12, duplicate_count: 0 });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 12, failed_count: 0 });
    expect(job.options).toMatchObject({ concurrency: 2, delay_ms: 10, max_pages: 12 });
    const items = (await call('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    for (const item of items) expect(Object.keys(item.data).sort()).toEqual(['name', 'sku']);

    // The saved ids of a list body are query parameters: an unknown one is a 422 there, not in the body.
    const list = { rawBody: env.play.url('shop.test', '/product/1'), headers: { 'content-type': 'text/plain' } };
    const refused = async (query: string) => {
      const res = await call('POST', `/api/v1/batch/extract?${query}`, list);
      expect(res.status).toBe(422);
      return (res.body.errors as any[]).map((e) => e.location);
    };
    expect(await refused(`schema_id=${schema.body.id}&site_id=nope`)).toEqual(['query.site_id']);
    expect(await refused('schema_id=nope')).toEqual(['query.schema_id']);
    expect(await refused(`site_id=${site.body.id}`)).toEqual(['query.schema_id']);
    expect(await refused(`schema_id=${schema.body.id}&webhook_id=nope`)).toEqual(['query.webhook_id']);
  });

  it("sends a saved site's headers and cookies with a list that names it (a text/plain body has no options), never to a redirect's other host", async () => {
    const { session, key } = AUTH_SITE_SECRETS;
    // A list body names its schema and model by what is stored: the tenant's key and chain, the site's default schema.
    await call('PUT', '/api/v1/llm/keys', {
      body: { provider: 'openai', is_enabled: true, api_key: 'sk-stored', base_url: env.models.openaiBaseUrl },
    });
    await call('PUT', '/api/v1/llm/chain', { body: { chain: [{ provider: 'openai', model: 'gpt-4o-mini' }] } });
    const schema = await call('POST', '/api/v1/schemas', {
      body: { name: `members-${Date.now()}`, schema_yaml: 'name: string\n', visibility: 'private' },
    });
    const site = await call('POST', '/api/v1/sites', {
      body: {
        url: env.play.url('auth.test', '/'),
        default_schema_id: schema.body.id,
        crawl_options: { headers: { 'X-Key': key }, cookies: { session }, fetch_mode: 'static' },
      },
    });
    expect([schema.status, site.status]).toEqual([201, 201]);
    const since = Date.now();
    const text = ['/', '/p/1', '/away'].map((path) => env.play.url('auth.test', path)).join('\n');
    const started = await call('POST', `/api/v1/batch/extract?site_id=${site.body.id}`, {
      rawBody: text,
      headers: { 'content-type': 'text/plain' },
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 3, failed_count: 0 });
    const auth = pageRequests('auth.test', since);
    expect(auth.map((r) => r.path).sort()).toEqual(['/', '/away', '/p/1']);
    expect(auth.every((r) => r.cookie === `session=${session}` && r.key === key)).toBe(true);
    const other = pageRequests('other.test', since);
    expect(other.length).toBeGreaterThan(0);
    expect(other.every((r) => r.cookie === undefined && r.key === undefined)).toBe(true);
    const shown = await call('GET', `/api/v1/jobs/${job.id}`);
    expect(shown.body.options).toMatchObject({ headers: null, cookies: null });
    expect(shown.text).not.toMatch(new RegExp(`${session}|${key}`));

    // The site's headers and cookies belong to its host: a list with a URL elsewhere is refused whole.
    const mixed = await call('POST', `/api/v1/batch/extract?site_id=${site.body.id}`, {
      rawBody: `${env.play.url('auth.test', '/p/1')}\n${env.play.url('other.test', '/')}`,
      headers: { 'content-type': 'text/plain' },
    });
    expect(mixed.status).toBe(422);
    expect(mixed.body.errors).toEqual([
      expect.objectContaining({ location: 'body', message: expect.stringContaining('this URL is on another host') }),
    ]);
    expect(env.app.logs.text).not.toMatch(new RegExp(`${session}|${key}`));
  });

  it('reads an ndjson list; refuses a bad line at its line, a list over GLEANER_BATCH_MAX_URLS; takes the query ids with a JSON body', async () => {
    const lines = [`"${env.play.url('h2.test', '/p/1')}"`, JSON.stringify({ url: env.play.url('h2.test', '/p/2') })];
    const schema = await call('POST', '/api/v1/schemas', {
      body: { name: `nd-${Date.now()}`, schema_yaml: 'name: string\n', visibility: 'private' },
    });
    const ok = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      rawBody: lines.join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(ok.status).toBe(202);
    expect((await finished(ok.body.job_id)).page_count).toBe(2);

    const badLine = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      rawBody: [lines[0], '{"href": "x"}', 'not json'].join('\n'),
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(badLine.status).toBe(422);
    expect(badLine.body.errors).toEqual([{ location: 'body.lines[2]', message: 'must be a JSON string or {"url": "..."}' }]);

    const tooMany = Array.from({ length: env.maxUrls + 1 }, (_, i) => env.play.url('big.test', `/n/${i}`)).join('\n');
    const over = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      rawBody: tooMany,
      headers: { 'content-type': 'text/plain' },
    });
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual([{ location: 'body', message: `must have at most ${env.maxUrls} URLs` }]);

    const badUrls = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      rawBody: `${env.play.url('h2.test', '/p/3')}\nftp://x.example/file\n\nnot a url\n`,
      headers: { 'content-type': 'text/plain' },
    });
    expect(badUrls.status).toBe(422);
    expect(badUrls.body.errors.map((e: any) => e.location)).toEqual(['body.lines[2]', 'body.lines[4]']);

    const empty = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      rawBody: '# nothing\n',
      headers: { 'content-type': 'text/plain' },
    });
    expect(empty.status).toBe(422);
    expect(empty.body.errors).toEqual([{ location: 'body', message: 'must list at least one URL' }]);

    // The query's ids go with every media type (issue 40: the document states them for all): with a JSON body
    // they fill the body's fields it leaves out, and the same field with two values is a 422 at the query.
    const mixed = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      body: { urls: [env.play.url('h2.test', '/p/1')] },
    });
    expect(mixed.status).toBe(202);
    expect((await call('GET', `/api/v1/jobs/${mixed.body.job_id}`)).body.type).toBe('batch');
    // Finished here, so its model call never lands in a later test's count of model requests.
    expect((await finished(mixed.body.job_id)).status).toBe('completed');
    const clash = await call('POST', `/api/v1/batch/extract?schema_id=${schema.body.id}`, {
      body: { urls: [env.play.url('h2.test', '/p/1')], schema_id: 'another' },
    });
    expect(clash.status).toBe(422);
    expect(clash.body.errors[0]).toMatchObject({ location: 'query.schema_id', message: 'differs from body.schema_id; give one of them' });
  });

  it('refuses bad JSON lists at the field or index, before any job exists; lists are for this operation only', async () => {
    const before = (await call('GET', '/api/v1/jobs?limit=100')).body.jobs.length;
    const invalid = await batch({
      urls: [env.play.url('shop.test', '/product/1'), 'mailto:x@y.z', env.play.url('shop.test', '/'), 'relative/path'],
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors.map((e: any) => e.location)).toEqual(['body.urls[1]', 'body.urls[3]']);
    const empty = await batch({ urls: [] });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0].location).toBe('body.urls');
    const tooLong = await batch({ urls: Array.from({ length: 10_001 }, (_, i) => `http://h.test/${i}`) });
    expect(tooLong.status).toBe(400);
    const unknownOption = await batch({ urls: [env.play.url('shop.test', '/product/1')], options: { max_depth: 2 } });
    expect(unknownOption.status).toBe(422);
    expect(unknownOption.body.errors[0]).toMatchObject({ location: 'body.options.max_depth', message: 'unknown field' });
    const text = await call('POST', '/api/v1/crawl', {
      rawBody: env.play.url('shop.test', '/'),
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(415);
    expect((await call('GET', '/api/v1/jobs?limit=100')).body.jobs.length).toBe(before);
  });

  it('without a schema stores each URL in the requested formats, with no model call and no key needed', async () => {
    const calls = env.models.requests.length;
    const urls = [1, 2].map((id) => env.play.url('shop.test', `/product/${id}`));
    const started = await call('POST', '/api/v1/batch/extract', {
      body: { urls, formats: ['text', 'page_info'], only_main_content: false },
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 2, cost_usd: 0, model_calls: 0 });
    expect(job.pages_by_method).toEqual({ model: 0, selectors: 0, mixed: 0, scrape: 2 });
    const items = (await call('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    for (const id of [1, 2]) {
      const item = items.find((i) => i.url === urls[id - 1]);
      expect(Object.keys(item.data).sort()).toEqual(['page_info', 'text']);
      expect(item.data.text).toContain(product(id).name);
      expect(item.metadata).toMatchObject({ method: 'scrape', status_code: 200 });
    }
    expect(env.models.requests.length).toBe(calls);
    // Tag filters shape each page's content, as a scrape's (the same conversion options).
    const filtered = await call('POST', '/api/v1/batch/extract', {
      body: { urls, formats: ['markdown'], include_tags: ['.related', 'h1'], exclude_tags: ['a[href$="/product/3"]'] },
    });
    expect(filtered.status).toBe(202);
    const filteredItems = (await call('GET', `/api/v1/jobs/${(await finished(filtered.body.job_id)).id}/results`)).body as any[];
    const first = filteredItems.find((i) => i.url === urls[0]);
    expect(first.data.markdown).toContain(`# ${product(1).name}`);
    expect(first.data.markdown).toContain('Related 2');
    expect(first.data.markdown).not.toMatch(/Related 3|Price:|SKU:/);
    const stray = await call('POST', '/api/v1/batch/extract', { body: { urls, schema: { name: 'string' }, include_tags: ['h1'] } });
    expect(stray.status).toBe(422);
    expect(stray.body.errors[0]).toMatchObject({ location: 'body.include_tags', message: 'is only for a request with formats' });
    const both = await batch({ urls, formats: ['markdown'] });
    expect(both.status).toBe(422);
    expect(both.body.errors[0]).toMatchObject({ location: 'body.formats' });
  });

  it('the json format beside markdown: each page stored with both, the schema by the model (Anthropic protocol), its tokens counted', async () => {
    const since = env.models.requests.length;
    const urls = [1, 2].map((id) => env.play.url('shop.test', `/product/${id}`));
    const claude = {
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
      api_key: 'sk-ant-batch-json',
      base_url: env.models.anthropicBaseUrl,
    };
    const started = await call('POST', '/api/v1/batch/extract', {
      body: { urls, formats: ['json', 'markdown'], schema: SCHEMA, prompt: 'The product as sold here.', llm_config: claude },
    });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', page_count: 2, failed_count: 0, model_calls: 2 });
    expect(job.pages_by_method).toEqual({ model: 0, selectors: 0, mixed: 0, scrape: 2 });
    expect(job.token_usage_input).toBeGreaterThan(0);
    const items = (await call('GET', `/api/v1/jobs/${job.id}/results`)).body as any[];
    for (const id of [1, 2]) {
      const item = items.find((i) => i.url === urls[id - 1]);
      expect(Object.keys(item.data)).toEqual(['markdown', 'json']);
      expect(item.data.markdown).toContain(product(id).name);
      expect(item.data.json).toMatchObject({ name: product(id).name, sku: product(id).sku });
      expect(item.metadata).toMatchObject({
        method: 'scrape',
        model_call: 'full',
        model: 'claude-haiku-4-5',
        provider: 'anthropic',
        ungrounded_fields: 0,
      });
    }
    const sent = env.models.requests.slice(since);
    expect(sent.map((r) => r.protocol)).toEqual(['anthropic', 'anthropic']);
    expect(sent.every((r) => `${r.system}\n${r.userText}`.includes('The product as sold here.'))).toBe(true);
    // json needs its schema; a prompt or a schema without json would be unused.
    for (const [body, location] of [
      [{ formats: ['json'] }, 'body.schema'],
      [{ formats: ['markdown'], prompt: 'x' }, 'body.prompt'],
    ] as const) {
      const refused = await call('POST', '/api/v1/batch/extract', { body: { urls, llm_config: claude, ...body } });
      expect([refused.status, refused.body.errors?.[0]?.location]).toEqual([422, location]);
    }
  });

  it('stops at max_cost_usd: the pages not started are skipped budget_exceeded', async () => {
    const urls = Array.from({ length: 8 }, (_, i) => env.play.url('shop.test', `/product/${SHOP_PRODUCTS - i}`));
    const started = await batch({ urls, max_cost_usd: 0.0001, options: { concurrency: 1 } });
    expect(started.status).toBe(202);
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ status: 'completed', error_category: 'budget_exceeded' });
    expect(job.page_count).toBeLessThan(8);
    const m = await mapOf(job.id);
    expect(m.skipped_by_reason.budget_exceeded).toBe(8 - job.page_count - job.failed_count);
  });

  it('needs the crawl scope; another tenant sees neither the batch nor its map', async () => {
    const started = await batch({ urls: [env.play.url('h3.test', '/p/1')] });
    const jobsOnly = await call('POST', '/api/v1/keys', { body: { name: `jobs-${Date.now()}`, scopes: ['jobs'] } });
    const refused = await http(env.app.baseUrl, 'POST', '/api/v1/batch/extract', {
      key: jobsOnly.body.key,
      body: { urls: [env.play.url('h3.test', '/p/2')], schema: SCHEMA },
    });
    expect(refused.status).toBe(403);
    const other = (await call('POST', '/api/v1/users', { body: { name: `batch-other-${Date.now()}` } })).body.key.key as string;
    expect((await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${started.body.job_id}/crawl-map`, { key: other })).status).toBe(404);
    await finished(started.body.job_id);
  });
}
