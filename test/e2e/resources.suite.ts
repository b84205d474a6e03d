/**
 * Saved sites, schemas and webhooks, usage, and job webhook deliveries: every endpoint's success
 * and failure paths. Run against the embedded and the cluster deployment.
 */
import { SitesService, type SiteRecord } from '@app/sites';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export function resourcesSuite(getEnv: () => RunningApp): void {
  let env: RunningApp;
  let admin: string;
  let other: string;
  let scoped: string;
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) => http(env.baseUrl, method, path, options);

  beforeAll(async () => {
    env = getEnv();
    admin = env.adminKey;
    other = (await call('POST', '/api/v1/users', { key: admin, body: { name: `other-${Date.now()}` } })).body.key.key;
    scoped = (await call('POST', '/api/v1/keys', { key: admin, body: { name: 'jobs-only', scopes: ['jobs'] } })).body.key;
  });

  describe('schemas', () => {
    let schemaId: string;

    it('lists the platform schemas to everyone, read-only', async () => {
      const list = await call('GET', '/api/v1/schemas', { key: other });
      expect(list.status).toBe(200);
      const platform = list.body.schemas.filter((s: { is_platform: boolean }) => s.is_platform);
      expect(platform.map((s: { id: string }) => s.id)).toEqual(
        expect.arrayContaining(['platform-product', 'platform-article', 'platform-job-posting', 'platform-recipe', 'platform-event']),
      );
      expect(platform[0]).toMatchObject({ visibility: 'public', user_id: null });
      const put = await call('PUT', '/api/v1/schemas/platform-product', { key: admin, body: { name: 'mine' } });
      expect(put.status).toBe(403);
      expect(put.body.type).toBe('/problems/forbidden');
      expect((await call('DELETE', '/api/v1/schemas/platform-product', { key: admin })).status).toBe(403);
    });

    it('creates a schema validated by the schema language', async () => {
      const res = await call('POST', '/api/v1/schemas', {
        key: admin,
        body: {
          name: 'Book',
          schema_yaml: 'title: string\nprice: number\ntags: [string]\n',
          description: 'books',
          category: 'shop',
          tags: ['books'],
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        name: 'Book',
        visibility: 'private',
        is_platform: false,
        usage_count: 0,
        tags: ['books'],
        category: 'shop',
      });
      expect(res.body.created_at).toMatch(/Z$/);
      schemaId = res.body.id;
    });

    it('rejects an invalid schema with errors pointing into it', async () => {
      const res = await call('POST', '/api/v1/schemas', {
        key: admin,
        body: {
          name: 'Bad',
          schema_yaml: JSON.stringify({
            name: 'x',
            fields: [
              { name: 'a', type: 'string' },
              { name: 'b', type: 'number' },
              { name: 'c', type: 'strng' },
            ],
          }),
        },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'body.schema_yaml.fields[2].type' })]));
      expect(res.body.errors[0].message).toMatch(/strng/);
      const missing = await call('POST', '/api/v1/schemas', { key: admin, body: { name: 'x' } });
      expect(missing.status).toBe(422);
      expect(missing.body.errors[0].location).toBe('body.schema_yaml');
      const badVisibility = await call('POST', '/api/v1/schemas', {
        key: admin,
        body: { name: 'x', schema_yaml: 'a: string', visibility: 'team' },
      });
      expect(badVisibility.status).toBe(422);
    });

    it('updates, lists, reads, shares and deletes', async () => {
      const put = await call('PUT', `/api/v1/schemas/${schemaId}`, {
        key: admin,
        body: { description: 'Book pages', schema_yaml: 'title: string\nisbn: string\n' },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({ description: 'Book pages', schema_yaml: 'title: string\nisbn: string\n', name: 'Book' });
      expect(put.body.updated_at >= put.body.created_at).toBe(true);
      const bad = await call('PUT', `/api/v1/schemas/${schemaId}`, { key: admin, body: { schema_yaml: '- just\n- a list\n' } });
      expect(bad.status).toBe(422);

      // private: invisible to the other tenant
      expect((await call('GET', `/api/v1/schemas/${schemaId}`, { key: other })).status).toBe(404);
      expect((await call('GET', '/api/v1/schemas', { key: other })).body.schemas.map((s: { id: string }) => s.id)).not.toContain(schemaId);
      // public: readable, but not writable
      expect((await call('PUT', `/api/v1/schemas/${schemaId}`, { key: admin, body: { visibility: 'public' } })).status).toBe(200);
      expect((await call('GET', `/api/v1/schemas/${schemaId}`, { key: other })).status).toBe(200);
      expect((await call('PUT', `/api/v1/schemas/${schemaId}`, { key: other, body: { name: 'stolen' } })).status).toBe(403);
      expect((await call('DELETE', `/api/v1/schemas/${schemaId}`, { key: other })).status).toBe(403);
      expect((await call('GET', '/api/v1/schemas', { key: other })).body.schemas.map((s: { id: string }) => s.id)).toContain(schemaId);

      expect((await call('GET', '/api/v1/schemas', { key: scoped })).status).toBe(403);
      const deleted = await call('DELETE', `/api/v1/schemas/${schemaId}`, { key: admin });
      expect(deleted.body).toEqual({ success: true });
      expect((await call('GET', `/api/v1/schemas/${schemaId}`, { key: admin })).status).toBe(404);
      expect((await call('DELETE', `/api/v1/schemas/${schemaId}`, { key: admin })).status).toBe(404);
    });
  });

  describe('sites', () => {
    let siteId: string;

    it('creates a site with its domain derived from the URL', async () => {
      const res = await call('POST', '/api/v1/sites', {
        key: admin,
        body: {
          url: 'https://WWW.Quotes.Example/page/1/',
          fetch_mode: 'static',
          default_schema_id: 'platform-article',
          crawl_options: { follow_pattern: '/page/\\d+/$', max_depth: 2, max_pages: 50 },
          analysis_result: {
            page_type: 'listing',
            detected_elements: [{ name: 'quote', type: 'list_item', description: 'a quote', count: 10 }],
          },
        },
      });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        url: 'https://WWW.Quotes.Example/page/1/',
        domain: 'quotes.example',
        name: 'quotes.example',
        fetch_mode: 'static',
        default_schema_id: 'platform-article',
        crawl_options: { follow_pattern: '/page/\\d+/$', max_depth: 2, max_pages: 50 },
      });
      expect(res.body.analysis_result.detected_elements[0].count).toBe(10);
      siteId = res.body.id;
    });

    it.each([
      [{ url: 'ftp://x.example/' }, 'body.url'],
      [{ url: 'not a url' }, 'body.url'],
      [{ url: 'https://user:pw@x.example/' }, 'body.url'],
      [{ url: 'https://x.example/', fetch_mode: 'turbo' }, 'body.fetch_mode'],
      [{ url: 'https://x.example/', crawl_options: { max_depth: 11 } }, 'body.crawl_options.max_depth'],
      [{ url: 'https://x.example/', crawl_options: { max_pages: 100001 } }, 'body.crawl_options.max_pages'],
      [{ url: 'https://x.example/', crawl_options: { concurrency: 33 } }, 'body.crawl_options.concurrency'],
      [{ url: 'https://x.example/', crawl_options: { follow_pattern: '(a)\\1' } }, 'body.crawl_options.follow_pattern'],
      [{ url: 'https://x.example/', crawl_options: { exclude_patterns: ['ok', '(?=x)'] } }, 'body.crawl_options.exclude_patterns'],
      [{ url: 'https://x.example/', crawl_options: { surprise: 1 } }, 'body.crawl_options.surprise'],
      [
        { url: 'https://x.example/', analysis_result: { detected_elements: [{ name: 'x' }] } },
        'body.analysis_result.detected_elements[0].type',
      ],
      [{ url: 'https://x.example/', default_schema_id: 'nope' }, 'body.default_schema_id'],
    ])('rejects %j at %s', async (body, location) => {
      const res = await call('POST', '/api/v1/sites', { key: admin, body });
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    });

    it('updates (ignoring url), lists, isolates tenants, deletes', async () => {
      const put = await call('PUT', `/api/v1/sites/${siteId}`, {
        key: admin,
        body: { url: 'https://elsewhere.example/', name: 'Quotes', crawl_options: { max_pages: 5 } },
      });
      expect(put.status).toBe(200);
      expect(put.body).toMatchObject({
        url: 'https://WWW.Quotes.Example/page/1/',
        domain: 'quotes.example',
        name: 'Quotes',
        crawl_options: { max_pages: 5 },
      });
      expect((await call('PUT', `/api/v1/sites/${siteId}`, { key: admin, body: { max_pages: 5 } })).status).toBe(422);
      const list = await call('GET', '/api/v1/sites', { key: admin });
      expect(list.body.sites.map((s: { id: string }) => s.id)).toContain(siteId);
      for (const [method, body] of [['GET'], ['PUT', { name: 'x' }], ['DELETE']] as const) {
        const res = await call(method, `/api/v1/sites/${siteId}`, { key: other, body });
        expect(res.status).toBe(404);
      }
      expect((await call('GET', '/api/v1/sites', { key: other })).body.sites).toEqual([]);
      expect((await call('GET', '/api/v1/sites', { key: scoped })).status).toBe(403);
      expect((await call('DELETE', `/api/v1/sites/${siteId}`, { key: admin })).body).toEqual({ success: true });
      expect((await call('GET', `/api/v1/sites/${siteId}`, { key: admin })).status).toBe(404);
    });
  });

  describe("a site's headers and cookies", () => {
    const MASK = '••••';
    const TOKEN = 'Bearer site-token-do-not-leak-4c1e';
    const TEAM = 'team-value-do-not-leak-77ab';
    const SESSION = 'session-do-not-leak-9d03';
    const VALUES = [TOKEN, TEAM, SESSION, 'replaced-do-not-leak-2b6f'];
    let siteId: string;
    const sites = () => env.app.get(SitesService);
    const stored = async () => {
      const store = env.app.get<symbol, DocumentStore>(DOCUMENT_STORE);
      return (await (await store.collection<SiteRecord>({ name: 'sites', indexes: [] })).findOne({ _id: siteId }))!;
    };
    const opened = async () => sites().fetchSecrets(await stored());
    const locations = (body: { errors?: Array<{ location: string }> }) => (body.errors ?? []).map((e) => e.location);

    it('are kept sealed in the store and shown masked in every answer', async () => {
      const res = await call('POST', '/api/v1/sites', {
        key: admin,
        body: {
          url: 'https://members.example/',
          crawl_options: {
            max_pages: 3,
            headers: { Authorization: TOKEN, 'X-Team': TEAM, 'User-Agent': 'SiteAgent/1' },
            cookies: { session: SESSION },
          },
        },
      });
      expect(res.status).toBe(201);
      siteId = res.body.id;
      // A User-Agent header is kept as user_agent (not a secret), as a request's is.
      expect(res.body.crawl_options).toEqual({
        max_pages: 3,
        user_agent: 'SiteAgent/1',
        headers: { Authorization: MASK, 'X-Team': MASK },
        cookies: { session: MASK },
      });
      const got = await call('GET', `/api/v1/sites/${siteId}`, { key: admin });
      expect(got.body.crawl_options).toEqual(res.body.crawl_options);
      const listed = (await call('GET', '/api/v1/sites', { key: admin })).body.sites.find((s: { id: string }) => s.id === siteId);
      expect(listed.crawl_options).toEqual(res.body.crawl_options);
      for (const text of [res.text, got.text]) for (const value of VALUES) expect(text).not.toContain(value);

      // The store itself: the names in the clear, the values only sealed, nothing in crawl_options.
      const record = await stored();
      expect(record.fetch_secret_names).toEqual({ headers: ['Authorization', 'X-Team'], cookies: ['session'] });
      expect(JSON.parse(record.fetch_secrets_sealed!)).toMatchObject({ v: 1, kid: expect.stringMatching(/^[0-9a-f]{8}$/) });
      expect(Object.keys(record.crawl_options).sort()).toEqual(['max_pages', 'user_agent']);
      for (const value of VALUES) expect(JSON.stringify(record)).not.toContain(value);
      expect(await opened()).toEqual({ headers: { Authorization: TOKEN, 'X-Team': TEAM }, cookies: { session: SESSION } });
    });

    it('are kept by an update that leaves them out, kept by name when sent back masked, replaced by a map, removed by null', async () => {
      const other = await call('PUT', `/api/v1/sites/${siteId}`, { key: admin, body: { crawl_options: { max_pages: 7 } } });
      expect(other.status).toBe(200);
      expect(other.body.crawl_options).toEqual({
        max_pages: 7,
        headers: { Authorization: MASK, 'X-Team': MASK },
        cookies: { session: MASK },
      });
      expect((await call('PUT', `/api/v1/sites/${siteId}`, { key: admin, body: { name: 'Members' } })).body.crawl_options).toEqual(
        other.body.crawl_options,
      );
      expect(await opened()).toEqual({ headers: { Authorization: TOKEN, 'X-Team': TEAM }, cookies: { session: SESSION } });

      // What a GET shows, sent back with one value changed and one name left out.
      const roundTrip = await call('PUT', `/api/v1/sites/${siteId}`, {
        key: admin,
        body: { crawl_options: { max_pages: 7, headers: { Authorization: MASK, 'X-Team': 'replaced-do-not-leak-2b6f' }, cookies: {} } },
      });
      expect(roundTrip.status).toBe(200);
      expect(roundTrip.body.crawl_options).toEqual({ max_pages: 7, headers: { Authorization: MASK, 'X-Team': MASK } });
      expect(await opened()).toEqual({ headers: { Authorization: TOKEN, 'X-Team': 'replaced-do-not-leak-2b6f' }, cookies: {} });

      const removed = await call('PUT', `/api/v1/sites/${siteId}`, { key: admin, body: { crawl_options: { headers: null } } });
      expect(removed.body.crawl_options).toEqual({});
      const record = await stored();
      expect(record).toMatchObject({ fetch_secret_names: null, fetch_secrets_sealed: null });
      expect(await opened()).toEqual({ headers: {}, cookies: {} });
    });

    it.each([
      ['a forbidden header', { headers: { Host: 'members.example' } }, 'body.crawl_options.headers'],
      ['a hop-by-hop header', { headers: { Connection: 'close' } }, 'body.crawl_options.headers'],
      ['a proxy header', { headers: { 'Proxy-Authorization': 'Basic x' } }, 'body.crawl_options.headers'],
      ['a header value with a line break', { headers: { 'X-A': 'one\r\nX-B: two' } }, 'body.crawl_options.headers'],
      ['a header name that is not a token', { headers: { 'X A': 'v' } }, 'body.crawl_options.headers'],
      ['a cookie value with a space', { cookies: { session: 'a b' } }, 'body.crawl_options.cookies'],
      ['a mask with nothing stored under its name', { headers: { 'X-Unknown': MASK } }, 'body.crawl_options.headers'],
      ['a masked cookie on a site without cookies', { cookies: { session: MASK } }, 'body.crawl_options.cookies'],
      ['a User-Agent header beside user_agent', { headers: { 'User-Agent': 'a' }, user_agent: 'b' }, 'body.crawl_options.user_agent'],
      ['a string for headers', { headers: 'Authorization: x' }, 'body.crawl_options.headers'],
    ])('refuses %s with a 422 at the field, echoing no value, and changes nothing', async (_name, crawlOptions, location) => {
      const before = await stored();
      for (const [method, path] of [
        ['PUT', `/api/v1/sites/${siteId}`],
        ['POST', '/api/v1/sites'],
      ] as const) {
        const res = await call(method, path, { key: admin, body: { url: 'https://members.example/', crawl_options: crawlOptions } });
        expect(res.status).toBe(422);
        expect(locations(res.body)).toEqual([location]);
        expect(res.text).not.toContain('members.example');
        expect(res.text).not.toContain('X-B: two');
      }
      expect(await stored()).toEqual(before);
    });

    it('never reach the logs', () => {
      expect(env.logs.text.length).toBeGreaterThan(0);
      for (const value of VALUES) expect(env.logs.text).not.toContain(value);
    });
  });

  describe('webhooks', () => {
    const SECRET = 'whsec_do_not_leak_0123456789';

    it('creates with PUT (201), replaces (200), never returns the secret', async () => {
      const created = await call('PUT', '/api/v1/webhooks/orders-sink', {
        key: admin,
        body: {
          name: 'orders',
          url: 'https://hooks.example/x',
          is_active: true,
          events: ['job.completed'],
          headers: [{ name: 'X-Team', value: 'data' }],
          secret: SECRET,
        },
      });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({
        id: 'orders-sink',
        name: 'orders',
        has_secret: true,
        events: ['job.completed'],
        headers: [{ name: 'X-Team', value: 'data' }],
      });
      expect(created.text).not.toContain(SECRET);
      const replaced = await call('PUT', '/api/v1/webhooks/orders-sink', {
        key: admin,
        body: { name: 'orders', url: 'https://hooks.example/y', is_active: false },
      });
      expect(replaced.status).toBe(200);
      expect(replaced.body).toMatchObject({ url: 'https://hooks.example/y', is_active: false, has_secret: false, events: [] });
      expect(replaced.body.created_at).toBe(created.body.created_at);
    });

    it('creates with POST (server id), gets, lists, deletes', async () => {
      const created = await call('POST', '/api/v1/webhooks', {
        key: admin,
        body: { name: 'posted', url: 'http://hooks.example/p', is_active: true, events: ['*'], secret: SECRET },
      });
      expect(created.status).toBe(201);
      expect(created.body.id).toHaveLength(26);
      const got = await call('GET', `/api/v1/webhooks/${created.body.id}`, { key: admin });
      expect(got.body).toMatchObject({ name: 'posted', has_secret: true });
      const list = await call('GET', '/api/v1/webhooks', { key: admin });
      expect(list.body.webhooks.map((w: { id: string }) => w.id)).toEqual(expect.arrayContaining([created.body.id, 'orders-sink']));
      expect(list.text).not.toContain(SECRET);
      const deliveries = await call('GET', `/api/v1/webhooks/${created.body.id}/deliveries`, { key: admin });
      expect(deliveries.body).toEqual({ webhook_id: created.body.id, deliveries: [] });
      expect((await call('DELETE', `/api/v1/webhooks/${created.body.id}`, { key: admin })).body).toEqual({ success: true });
      expect((await call('GET', `/api/v1/webhooks/${created.body.id}`, { key: admin })).status).toBe(404);
    });

    it('refuses a duplicate name with 409', async () => {
      const res = await call('POST', '/api/v1/webhooks', {
        key: admin,
        body: { name: 'orders', url: 'https://hooks.example/z', is_active: true },
      });
      expect(res.status).toBe(409);
      expect(res.body.type).toBe('/problems/conflict');
      // Names are unique per user: another tenant may use the same name and even the same id.
      const theirs = await call('PUT', '/api/v1/webhooks/orders-sink', {
        key: other,
        body: { name: 'orders', url: 'https://hooks.example/o', is_active: true },
      });
      expect(theirs.status).toBe(201);
      expect((await call('GET', '/api/v1/webhooks/orders-sink', { key: admin })).body.url).toBe('https://hooks.example/y');
    });

    it.each([
      [{ name: '', url: 'https://h.example/', is_active: true }, 'body.name'],
      [{ name: 'x'.repeat(65), url: 'https://h.example/', is_active: true }, 'body.name'],
      [{ name: 'n', url: 'ftp://h.example/', is_active: true }, 'body.url'],
      [{ name: 'n', url: 'https://h.example/' }, 'body.is_active'],
      [{ name: 'n', url: 'https://h.example/', is_active: true, events: ['job.exploded'] }, 'body.events'],
      [{ name: 'n', url: 'https://h.example/', is_active: true, secret: 's'.repeat(257) }, 'body.secret'],
      [
        {
          name: 'n',
          url: 'https://h.example/',
          is_active: true,
          headers: Array.from({ length: 11 }, (_, i) => ({ name: `X-${i}`, value: 'v' })),
        },
        'body.headers',
      ],
      [
        { name: 'n', url: 'https://h.example/', is_active: true, headers: [{ name: 'Content-Type', value: 'text/plain' }] },
        'body.headers[0].name',
      ],
      [
        { name: 'n', url: 'https://h.example/', is_active: true, headers: [{ name: 'webhook-signature', value: 'v1,x' }] },
        'body.headers[0].name',
      ],
      [{ name: 'n', url: 'https://h.example/', is_active: true, headers: [{ name: 'Host', value: 'evil' }] }, 'body.headers[0].name'],
      [
        { name: 'n', url: 'https://h.example/', is_active: true, headers: [{ name: 'X-A', value: 'a\r\nInjected: 1' }] },
        'body.headers[0].value',
      ],
    ])('rejects %j at %s', async (body, location) => {
      const res = await call('POST', '/api/v1/webhooks', { key: admin, body });
      expect(res.status).toBe(422);
      expect(res.body.errors.map((e: { location: string }) => e.location)).toContain(location);
      expect(res.text).not.toContain('s'.repeat(257));
    });

    it('rejects bad client-chosen ids and isolates tenants', async () => {
      const bad = await call('PUT', '/api/v1/webhooks/has%20space', {
        key: admin,
        body: { name: 'n2', url: 'https://h.example/', is_active: true },
      });
      expect(bad.status).toBe(422);
      expect(bad.body.errors[0].location).toBe('path.id');
      expect((await call('GET', '/api/v1/webhooks/orders-sink/deliveries', { key: scoped })).status).toBe(403);
      const otherList = await call('GET', '/api/v1/webhooks', { key: other });
      expect(otherList.body.webhooks.map((w: { url: string }) => w.url)).toEqual(['https://hooks.example/o']);
      expect((await call('DELETE', '/api/v1/webhooks/orders-sink', { key: other })).status).toBe(200);
      expect((await call('GET', '/api/v1/webhooks/orders-sink', { key: admin })).status).toBe(200);
      expect((await call('GET', '/api/v1/webhooks/nope/deliveries', { key: admin })).status).toBe(404);
    });

    it('keeps the secret out of the logs', () => {
      expect(env.logs.text).not.toContain(SECRET);
    });
  });

  describe('usage and job deliveries', () => {
    it('reports jobs, pages and cost per day and per type', async () => {
      const job = await call('POST', '/api/v1/test-jobs', { key: other, body: { steps: 2, step_ms: 1 } });
      await waitFor(async () => (await call('GET', `/api/v1/jobs/${job.body.id}`, { key: other })).body.status === 'completed');
      const usage = await call('GET', '/api/v1/usage', { key: other });
      expect(usage.status).toBe(200);
      expect(usage.body.total).toMatchObject({ jobs: 1, pages: 2, input_tokens: 0, output_tokens: 0, cost_usd: 0 });
      expect(usage.body.by_type.test.jobs).toBe(1);
      expect(usage.body.days).toEqual([expect.objectContaining({ date: new Date().toISOString().slice(0, 10), jobs: 1 })]);
      const empty = await call('GET', '/api/v1/usage?from=2020-01-01&to=2020-02-01', { key: other });
      expect(empty.body.total.jobs).toBe(0);
      expect((await call('GET', '/api/v1/usage?from=yesterday', { key: other })).status).toBe(422);
      expect((await call('GET', '/api/v1/usage?from=2020-02-01&to=2020-01-01', { key: other })).status).toBe(422);
      expect((await call('GET', '/api/v1/usage?from=2020-01-01&to=2022-01-01', { key: other })).status).toBe(422);

      const deliveries = await call('GET', `/api/v1/jobs/${job.body.id}/webhooks`, { key: other });
      expect(deliveries.body).toEqual({ job_id: job.body.id, deliveries: [] });
      expect((await call('GET', `/api/v1/jobs/${job.body.id}/webhooks`, { key: admin })).status).toBe(404);
    });
  });
}
