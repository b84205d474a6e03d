/**
 * Tenant sweep (issue 11 point 6): walks EVERY operation of the served OpenAPI document whose path
 * takes a parameter and proves that tenant B gets a 404 problem+json for tenant A's private
 * resources, that nothing changed for A afterwards, and that A itself gets 2xx on the same GETs.
 * An id-taking operation this file does not know fails the test, so a new endpoint cannot be forgotten.
 */
import { startModelServer, type ModelServer } from '../fixtures/model-server';
import { startPlayground, type Playground } from '../fixtures/playground/playground';
import { startWebhookReceiver, type WebhookReceiver } from '../fixtures/webhook-receiver';
import { startEmbedded, type RunningApp } from './embedded-app';
import { http, waitFor, type HttpResult } from './helpers';

jest.setTimeout(120_000);

type Resource =
  | 'job'
  | 'crawl'
  | 'archivedPage'
  | 'screenshot'
  | 'site'
  | 'schema'
  | 'webhook'
  | 'key'
  | 'providerKey'
  | 'learnedProgram'
  | 'monitor'
  | 'authProfile';

/** Path parameters that do not name a tenant's resource, each with the reason. */
const NON_TENANT: Record<string, string> = {
  'GET /problems/{slug}': 'public documentation of an error type; the slug names a problem type, not a resource',
  'GET /api/v1/llm/models/{provider}': 'the provider name is a catalog value; the answer comes from the shared price table',
  'GET /api/v1/downloads/{id}':
    "signed link without a bearer key: the signature is the credential (checked below: A's job id without A's signature is refused)",
  'DELETE /api/v1/users/{id}':
    "admin only: a tenant's key gets 403 before any user is looked up (tenant-deletion.suite.ts); the id names a tenant, not a resource it owns",
  'GET /api/v1/downloads/screenshots/{id}':
    "signed link without a bearer key, as downloads (checked below: A's screenshot id without A's signature is refused)",
};

/**
 * Upserts whose id lives in the caller's own namespace: B's PUT creates B's own resource (201) and must
 * neither see nor touch A's one (checked: A's resource is unchanged, B's copy is B's).
 */
const CALLER_NAMESPACE_UPSERTS = new Set(['PUT /api/v1/webhooks/{id}']);

/** Which of A's resources an id-taking path names, by path prefix (the most specific first). */
const RESOURCE_BY_PREFIX: Array<[string, Resource]> = [
  ['/api/v1/jobs/{id}/crawl-map', 'crawl'],
  ['/api/v1/jobs/{id}/results/{resultId}/page', 'archivedPage'],
  ['/api/v1/jobs/{id}/screenshots/{screenshotId}', 'screenshot'],
  ['/api/v1/jobs/{id}', 'job'],
  ['/api/v1/sites/{id}', 'site'],
  ['/api/v1/schemas/{id}', 'schema'],
  ['/api/v1/webhooks/{id}', 'webhook'],
  ['/api/v1/keys/{id}', 'key'],
  ['/api/v1/llm/keys/{id}', 'providerKey'],
  ['/api/v1/learned-programs/{id}', 'learnedProgram'],
  ['/api/v1/monitors/{id}', 'monitor'],
  ['/api/v1/auth-profiles/{id}', 'authProfile'],
];

/** A valid body for the operations that take one (so a 404 cannot hide behind a 422). */
const BODIES: Record<string, unknown> = {
  'PUT /api/v1/sites/{id}': { name: 'renamed by B' },
  'PUT /api/v1/schemas/{id}': { name: 'renamed by B' },
  'PUT /api/v1/webhooks/{id}': { name: 'b-hook', url: 'https://hooks.example/b', is_active: false },
  'PUT /api/v1/monitors/{id}': { name: 'renamed by B' },
  'PUT /api/v1/auth-profiles/{id}': { name: 'renamed by B' },
  'POST /api/v1/jobs/{id}/reextract': {},
};

interface Operation {
  method: string;
  path: string;
  resource: Resource;
  hasBody: boolean;
}

describe('tenant sweep over every id-taking operation of the OpenAPI document (embedded)', () => {
  let app: RunningApp;
  let play: Playground;
  let models: ModelServer;
  let receiver: WebhookReceiver;
  let keyA: string;
  let keyB: string;
  let extraKeyA: string;
  const ids = {} as Record<Resource, string>;
  let screenshotUrl = '';
  const operations: Operation[] = [];
  const unknown: string[] = [];
  let doc: any;

  const as = (key: string, method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(app.baseUrl, method, path, { key, ...opts });
  /** A screenshot is named by its scrape job and its own id; every other resource by one id. */
  let scrapeJob = '';
  const concrete = (op: Operation) =>
    op.resource === 'screenshot'
      ? op.path.replace('{id}', encodeURIComponent(scrapeJob)).replace('{screenshotId}', encodeURIComponent(ids.screenshot))
      : op.resource === 'archivedPage'
        ? op.path.replace('{id}', encodeURIComponent(ids.crawl)).replace('{resultId}', encodeURIComponent(ids.archivedPage))
        : op.path.replace(/\{[^}]+\}/, encodeURIComponent(ids[op.resource]));

  /** Status and content type only; the body is dropped (an SSE stream of a finished job would be read in full otherwise). */
  async function head(key: string, method: string, path: string): Promise<{ status: number; type: string | null }> {
    const controller = new AbortController();
    const res = await fetch(`${app.baseUrl}${path}`, { method, headers: { authorization: `Bearer ${key}` }, signal: controller.signal });
    controller.abort();
    return { status: res.status, type: res.headers.get('content-type') };
  }

  /** What A sees of each resource, to prove B changed nothing. */
  async function snapshot(): Promise<Record<string, unknown>> {
    const job = (await as(keyA, 'GET', `/api/v1/jobs/${ids.job}`)).body;
    const crawl = (await as(keyA, 'GET', `/api/v1/jobs/${ids.crawl}`)).body;
    return {
      job: [job.status, job.page_count],
      crawl: [crawl.status, crawl.page_count],
      results: (await as(keyA, 'GET', `/api/v1/jobs/${ids.job}/results`)).body,
      site: (await as(keyA, 'GET', `/api/v1/sites/${ids.site}`)).body,
      schema: (await as(keyA, 'GET', `/api/v1/schemas/${ids.schema}`)).body,
      webhook: (await as(keyA, 'GET', `/api/v1/webhooks/${ids.webhook}`)).body,
      keys: (await as(keyA, 'GET', '/api/v1/keys')).body,
      providerKeys: (await as(keyA, 'GET', '/api/v1/llm/keys')).body,
      learnedPrograms: (await as(keyA, 'GET', '/api/v1/learned-programs')).body,
      monitor: (await as(keyA, 'GET', `/api/v1/monitors/${ids.monitor}`)).body,
      monitorRuns: (await as(keyA, 'GET', `/api/v1/monitors/${ids.monitor}/runs`)).body,
      authProfile: (await as(keyA, 'GET', `/api/v1/auth-profiles/${ids.authProfile}`)).body,
    };
  }

  beforeAll(async () => {
    play = await startPlayground();
    models = await startModelServer();
    receiver = await startWebhookReceiver();
    app = await startEmbedded({
      GLEANER_ALLOW_NETWORKS: '127.0.0.0/8',
      GLEANER_RESOLVE: play.resolve,
      // The browser takes the screenshot of A's scrape (GET /jobs/{id}/screenshots/{screenshotId}).
      GLEANER_BROWSER_ENABLED: 'true',
      GLEANER_RATE_LIMIT_PER_MINUTE: '1000000',
      GLEANER_LLM_RETRIES: '0',
      GLEANER_WEBHOOK_RETRY_BASE_MS: '100',
      GLEANER_EXTRACT_WAIT_MS: '60000',
    });

    const tenant = async (name: string) => {
      const res = await as(app.adminKey, 'POST', '/api/v1/users', { body: { name } });
      expect(res.status).toBe(201);
      expect(res.body.is_admin).toBe(false);
      return res.body.key.key as string;
    };
    keyA = await tenant('tenant-a');
    keyB = await tenant('tenant-b');

    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-tenant-a', base_url: models.openaiBaseUrl };
    const created = async (method: string, path: string, body: unknown) => {
      const res = await as(keyA, method, path, { body });
      expect([path, res.status < 300]).toEqual([path, true]);
      return res.body;
    };

    const extra = await created('POST', '/api/v1/keys', { name: 'a-extra', scopes: ['extract', 'crawl', 'jobs'] });
    ids.key = extra.id;
    extraKeyA = extra.key;
    await created('PUT', '/api/v1/llm/keys', {
      provider: 'openai',
      is_enabled: true,
      api_key: 'sk-tenant-a',
      base_url: models.openaiBaseUrl,
    });
    ids.providerKey = (await as(keyA, 'GET', '/api/v1/llm/keys')).body.keys.find((k: { provider: string }) => k.provider === 'openai').id;
    ids.site = (await created('POST', '/api/v1/sites', { url: play.url('shop.test', '/'), name: 'A shop' })).id;
    ids.schema = (await created('POST', '/api/v1/schemas', { name: 'A private', schema_yaml: 'name: string', visibility: 'private' })).id;
    ids.webhook = (await created('POST', '/api/v1/webhooks', { name: 'a-hook', url: `${receiver.url}/ok`, is_active: true })).id;
    ids.authProfile = (
      await created('POST', '/api/v1/auth-profiles', {
        name: 'A members',
        hosts: ['shop.test'],
        login: { type: 'form', url: play.url('shop.test', '/login'), username: 'a-user', password: 'a-password' },
        check: { session_cookie: 'sid' },
      })
    ).id;
    // Paused: no scheduled run changes it while B tries its operations.
    ids.monitor = (
      await created('POST', '/api/v1/monitors', {
        name: 'A monitor',
        url: play.url('shop.test', '/catalog/page/1'),
        schema: { name: 'string' },
        llm_config: llm,
        schedule: { every: '1h' },
        paused: true,
      })
    ).id;

    const extract = await as(keyA, 'POST', '/api/v1/extract', {
      body: {
        url: play.url('shop.test', '/catalog/page/1'),
        schema: { name: 'string' },
        fetch_mode: 'static',
        capture_debug: true,
        webhook_id: ids.webhook,
        llm_config: llm,
      },
    });
    expect(extract.status).toBe(200);
    ids.job = extract.body.job_id;

    const shot = await as(keyA, 'POST', '/api/v1/scrape', {
      body: { url: play.url('shop.test', '/catalog/page/1'), formats: ['screenshot'], fetch_mode: 'dynamic' },
    });
    expect(shot.status).toBe(200);
    scrapeJob = shot.body.job_id;
    ids.screenshot = shot.body.metadata.screenshot_id;
    screenshotUrl = shot.body.metadata.screenshot_url;

    const crawl = await as(keyA, 'POST', '/api/v1/crawl', {
      body: {
        url: play.url('shop.test', '/catalog/page/1'),
        schema: { name: 'string' },
        llm_config: llm,
        options: { follow_selector: 'a.product', max_depth: 1, max_pages: 2 },
        extraction_mode: 'auto', // its pages found learned templates (GET/DELETE /learned-programs/{id})
      },
    });
    expect(crawl.status).toBe(202);
    ids.crawl = crawl.body.job_id;
    await waitFor(async () => (await as(keyA, 'GET', `/api/v1/jobs/${ids.crawl}`)).body.status === 'completed', 60_000);
    ids.learnedProgram = (await as(keyA, 'GET', '/api/v1/learned-programs')).body.learned_programs[0].id;
    // A crawl keeps its pages by default: a result's archived page (GET /jobs/{id}/results/{resultId}/page).
    ids.archivedPage = (await as(keyA, 'GET', `/api/v1/jobs/${ids.crawl}/results`)).body[0].id;
    // The delivery of A's webhook for the extract job is recorded.
    await waitFor(async () => (await as(keyA, 'GET', `/api/v1/jobs/${ids.job}/webhooks`)).body.deliveries.length > 0, 30_000);

    doc = (await as(keyA, 'GET', '/api/v1/openapi.json')).body;
    for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
      if (!path.includes('{')) continue;
      for (const [method, op] of Object.entries<any>(item)) {
        const name = `${method.toUpperCase()} ${path}`;
        if (name in NON_TENANT) continue;
        const match = RESOURCE_BY_PREFIX.find(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));
        if (!match) unknown.push(name);
        else operations.push({ method: method.toUpperCase(), path, resource: match[1], hasBody: Boolean(op.requestBody) });
      }
    }
  });

  afterAll(async () => {
    await app?.close();
    await play?.close();
    await models?.close();
    await receiver?.close();
  });

  it("A's resources are real: results, a debug capture, a delivery, a crawl map", async () => {
    expect((await as(keyA, 'GET', `/api/v1/jobs/${ids.job}/results`)).body.length).toBeGreaterThan(0);
    const capture = (await as(keyA, 'GET', `/api/v1/jobs/${ids.job}/debug-capture`)).body;
    expect(capture.enabled).toBe(true);
    expect(capture.captures.length).toBeGreaterThan(0);
    expect((await as(keyA, 'GET', `/api/v1/webhooks/${ids.webhook}/deliveries`)).body.deliveries.length).toBeGreaterThan(0);
    expect((await as(keyA, 'GET', `/api/v1/jobs/${ids.crawl}/crawl-map`)).status).toBe(200);
  });

  it('every id-taking operation of the OpenAPI document is known to the sweep', () => {
    expect(unknown).toEqual([]);
    // Each resource kind of the issue is reached by at least one operation.
    expect(new Set(operations.map((op) => op.resource))).toEqual(new Set(RESOURCE_BY_PREFIX.map(([, r]) => r)));
    for (const path of [
      '/api/v1/jobs/{id}/results',
      '/api/v1/jobs/{id}/download',
      '/api/v1/jobs/{id}/debug-capture',
      '/api/v1/jobs/{id}/webhooks',
      '/api/v1/webhooks/{id}/deliveries',
    ]) {
      expect(operations.map((op) => op.path)).toContain(path);
    }
  });

  it('A gets 2xx on every GET of the sweep (so the 404s below mean something)', async () => {
    const seen: Array<[string, number]> = [];
    for (const op of operations.filter((o) => o.method === 'GET'))
      seen.push([`${op.method} ${concrete(op)}`, (await head(keyA, 'GET', concrete(op))).status]);
    expect(seen.filter(([, status]) => status < 200 || status >= 300)).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
  });

  it("tenant B gets 404 problem+json for every operation on A's resources, and nothing changes for A", async () => {
    const before = await snapshot();
    const wrong: Array<{ op: string; status: number; type: string | null; body: string }> = [];
    const ordered = [
      ...operations.filter((op) => !CALLER_NAMESPACE_UPSERTS.has(`${op.method} ${op.path}`)),
      ...operations.filter((op) => CALLER_NAMESPACE_UPSERTS.has(`${op.method} ${op.path}`)),
    ];
    for (const op of ordered) {
      const name = `${op.method} ${op.path}`;
      const path = concrete(op);
      if (op.hasBody) expect([name, BODIES[name] !== undefined]).toEqual([name, true]);
      let res: HttpResult | { status: number; headers: Headers; text: string; body: any };
      if (op.path.endsWith('/stream')) {
        const h = await head(keyB, op.method, path);
        res = { status: h.status, headers: new Headers({ 'content-type': h.type ?? '' }), text: '', body: { status: h.status } };
      } else {
        res = await as(keyB, op.method, path, op.hasBody ? { body: BODIES[name] } : {});
      }
      if (CALLER_NAMESPACE_UPSERTS.has(name)) {
        // B created its own resource under that id; it is B's, not A's.
        if (res.status !== 201 || res.body?.name !== (BODIES[name] as { name: string }).name) {
          wrong.push({ op: name, status: res.status, type: res.headers.get('content-type'), body: res.text.slice(0, 300) });
        }
        continue;
      }
      const type = res.headers.get('content-type');
      if (res.status !== 404 || !type?.includes('application/problem+json') || res.body?.status !== 404) {
        wrong.push({ op: name, status: res.status, type, body: res.text.slice(0, 300) });
      }
    }
    expect(wrong).toEqual([]);
    expect(await snapshot()).toEqual(before);
    // B's DELETE did not revoke A's extra key: it still authenticates.
    const key = (before.keys as { keys: Array<{ id: string; revoked_at: string | null }> }).keys.find((k) => k.id === ids.key);
    expect(key).toMatchObject({ revoked_at: null });
    expect((await as(extraKeyA, 'GET', `/api/v1/jobs/${ids.job}`)).status).toBe(200);
  });

  it("the signed download link is the credential: A's job id without A's signature is refused, A's link works", async () => {
    const bare = await fetch(`${app.baseUrl}/api/v1/downloads/${ids.job}?format=json`, { headers: { authorization: `Bearer ${keyB}` } });
    expect(bare.status).toBe(403);
    expect(bare.headers.get('content-type')).toContain('application/problem+json');
    const link = (await as(keyA, 'GET', `/api/v1/jobs/${ids.job}/download`)).body.download_url as string;
    const forged = link.replace(/sig=[^&]+/, 'sig=AAAA');
    expect((await fetch(forged)).status).toBe(403);
    expect((await fetch(link)).status).toBe(200);
  });

  it("the signed screenshot link is the credential: A's screenshot id without A's signature is refused, A's link works", async () => {
    const bare = await fetch(`${app.baseUrl}/api/v1/downloads/screenshots/${ids.screenshot}`, {
      headers: { authorization: `Bearer ${keyB}` },
    });
    expect(bare.status).toBe(403);
    expect(bare.headers.get('content-type')).toContain('application/problem+json');
    expect((await fetch(screenshotUrl.replace(/sig=[^&]+/, 'sig=AAAA'))).status).toBe(403);
    const own = await fetch(screenshotUrl);
    expect(own.status).toBe(200);
    expect(own.headers.get('content-type')).toBe('image/png');
  });
});
