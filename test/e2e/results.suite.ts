/**
 * Job results: formats and negotiation, merge rules, tenancy, signed downloads, debug captures and
 * the SSE `result` event shape. Run against the embedded and the cluster deployment.
 */
import { parse as parseYaml } from 'yaml';
import type { Caller } from '@app/auth';
import { JobsRepository } from '@app/jobs';
import { ResultsService } from '@app/results';
import { startGates } from '../fixtures/gate';
import type { RunningApp } from './embedded-app';
import { http, readSse, waitFor } from './helpers';

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function resultsSuite(getEnv: () => RunningApp): void {
  let env: RunningApp;
  let admin: string;
  let other: string;
  let extractOnly: string;
  const call = (method: string, path: string, options: Parameters<typeof http>[3] = {}) => http(env.baseUrl, method, path, options);

  async function runJob(body: Record<string, unknown>, key = admin): Promise<string> {
    const created = await call('POST', '/api/v1/test-jobs', { key, body });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await waitFor(async () => (await call('GET', `/api/v1/jobs/${id}`, { key })).body.status === 'completed');
    return id;
  }

  const get = (path: string, headers: Record<string, string> = {}, key = admin) => call('GET', path, { key, headers });

  beforeAll(async () => {
    env = getEnv();
    admin = env.adminKey;
    other = (await call('POST', '/api/v1/users', { key: admin, body: { name: `results-other-${Date.now()}` } })).body.key.key;
    extractOnly = (await call('POST', '/api/v1/keys', { key: admin, body: { name: 'extract-only', scopes: ['extract'] } })).body.key;
  });

  describe('formats', () => {
    let jobId: string;
    let expected: Array<Record<string, unknown>>;

    beforeAll(async () => {
      jobId = await runJob({ steps: 3, step_ms: 0, url: 'https://shop.example/list' });
      expected = [0, 1, 2].map((step) => ({
        url: `https://shop.example/list#${step}`,
        status: 'completed',
        data: { step },
        // Stored without metadata (not a crawl page): made by a model call, as every extract result.
        metadata: { method: 'model' },
        // Every item has its list, [] when nothing deserves a look (docs/api.md "Warnings").
        warnings: [],
      }));
    });

    it('answers a bare JSON array of result items by default', async () => {
      const res = await get(`/api/v1/jobs/${jobId}/results`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.headers.get('vary')).toMatch(/accept/i);
      expect(res.body).toEqual(expected.map((item) => ({ ...item, id: expect.stringMatching(ULID) })));
      expect(Object.keys(res.body[0])).toEqual(['id', 'url', 'status', 'data', 'metadata', 'warnings']);
      expect(new Set(res.body.map((item: { id: string }) => item.id)).size).toBe(3);
    });

    it('serves JSON lines and YAML that parse back to the same items', async () => {
      const json = (await get(`/api/v1/jobs/${jobId}/results?format=json`)).body;
      const jsonl = await get(`/api/v1/jobs/${jobId}/results?format=jsonl`);
      expect(jsonl.status).toBe(200);
      expect(jsonl.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(jsonl.text.endsWith('\n')).toBe(true);
      expect(
        jsonl.text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual(json);
      const yaml = await get(`/api/v1/jobs/${jobId}/results?format=yaml`);
      expect(yaml.status).toBe(200);
      expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
      expect(yaml.text.startsWith('- ')).toBe(true);
      expect(parseYaml(yaml.text)).toEqual(json);
    });

    it('negotiates the format from Accept', async () => {
      const cases: Array<[string, string]> = [
        ['application/json', 'application/json'],
        ['application/x-ndjson', 'application/x-ndjson'],
        ['application/jsonl', 'application/x-ndjson'],
        ['application/yaml', 'application/yaml'],
        ['text/yaml', 'application/yaml'],
        ['*/*', 'application/json'],
        ['text/html, application/xhtml+xml, */*;q=0.8', 'application/json'],
        ['application/x-ndjson, */*', 'application/x-ndjson'],
        ['application/yaml;q=0.5, application/json', 'application/json'],
        ['application/json;q=0.2, text/yaml;q=0.9', 'application/yaml'],
      ];
      for (const [accept, type] of cases) {
        const res = await get(`/api/v1/jobs/${jobId}/results`, { accept });
        expect({ accept, status: res.status, type: res.headers.get('content-type')?.split(';')[0] }).toEqual({ accept, status: 200, type });
      }
    });

    it('lets format= win over Accept', async () => {
      const res = await get(`/api/v1/jobs/${jobId}/results?format=yaml`, { accept: 'application/json' });
      expect(res.headers.get('content-type')).toMatch(/^application\/yaml/);
      const lenient = await get(`/api/v1/jobs/${jobId}/results?format=jsonl`, { accept: 'text/html' });
      expect(lenient.status).toBe(200);
      expect(lenient.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
    });

    it('answers 406 problem+json for an unsupported format or Accept', async () => {
      for (const res of [
        await get(`/api/v1/jobs/${jobId}/results?format=csv`),
        await get(`/api/v1/jobs/${jobId}/results`, { accept: 'text/html' }),
        await get(`/api/v1/jobs/${jobId}/results`, { accept: 'application/json;q=0, text/csv' }),
      ]) {
        expect(res.status).toBe(406);
        expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(res.body).toMatchObject({ type: '/problems/not-acceptable', status: 406 });
      }
    });

    it('validates merge strictly (422)', async () => {
      for (const value of ['yes', '1', 'TRUE', '']) {
        const res = await get(`/api/v1/jobs/${jobId}/results?merge=${value}`);
        expect(res.status).toBe(422);
        expect(res.body.errors).toEqual([expect.objectContaining({ location: 'query.merge' })]);
      }
      expect((await get(`/api/v1/jobs/${jobId}/results?merge=false`)).body).toHaveLength(3);
      expect((await get(`/api/v1/jobs/${jobId}/results?page=2`)).status).toBe(422);
    });

    it("hides another tenant's job (404) and needs the jobs scope (403)", async () => {
      for (const path of ['results', 'results?format=jsonl', 'download', 'debug-capture']) {
        const res = await get(`/api/v1/jobs/${jobId}/${path}`, {}, other);
        expect(res.status).toBe(404);
        expect(res.body.type).toBe('/problems/not-found');
      }
      expect((await get('/api/v1/jobs/01JD0000000000000000000000/results')).status).toBe(404);
      expect((await get(`/api/v1/jobs/${jobId}/results`, {}, extractOnly)).status).toBe(403);
      expect((await call('GET', `/api/v1/jobs/${jobId}/results`)).status).toBe(401);
    });

    it('sends the SSE result event as the result item plus depth, parent_url and tokens', async () => {
      const stream = await readSse(`${env.baseUrl}/api/v1/jobs/${jobId}/stream`, { key: admin });
      const results = stream.events.filter((e) => e.event === 'result').map((e) => e.data);
      const items = (await get(`/api/v1/jobs/${jobId}/results`)).body;
      expect(results).toEqual(
        items.map((item: Record<string, unknown>) => ({
          ...item,
          depth: 0,
          parent_url: null,
          token_usage_input: 0,
          token_usage_output: 0,
        })),
      );
    });
  });

  describe('failed items and merge', () => {
    let jobId: string;
    const pages: Array<Record<string, unknown>> = [
      { data: [{ name: 'a' }, { name: 'b' }] }, // array: its elements
      { data: { products: [{ name: 'c' }, { name: 'a' }] } }, // single array field of objects: its items ('a' is a duplicate)
      // a record with a list of scalars: itself (stored with metadata, as a crawl page made by a learned program)
      { data: { title: 'plain', tags: ['x', 'y'] }, metadata: { method: 'selectors', program_id: 'prg_1', template_id: 'tpl_1' } },
      { data: { name: 'b' } }, // same JSON as an earlier item
      { data: { url: 'https://x.example/1', name: 'p1', price: null } }, // poorer than page 6
      { data: { items: [{ url: 'https://x.example/1', name: 'p1', price: 5 }] } }, // richer: wins, written here
      { status: 'failed', data: { name: 'failed' }, error_category: 'http_error', error_message: 'HTTP 500' }, // skipped in merge
      { data: { products: [] } }, // an empty wrapper: nothing
      { data: { url: 'https://x.example/2', name: 'q', extra: 1 } }, // richer: wins
      { data: { url: 'https://x.example/2', name: 'q2' } },
      { data: { b: 1, a: 2 } },
      { data: { a: 2, b: 1 } }, // same JSON, other key order
      { data: null }, // nothing
      { data: [{ n: 1 }, { n: 1 }, 'scalar'] },
    ];
    const merged = [
      { name: 'a' },
      { name: 'b' },
      { name: 'c' },
      { title: 'plain', tags: ['x', 'y'] },
      { url: 'https://x.example/1', name: 'p1', price: 5 },
      { url: 'https://x.example/2', name: 'q', extra: 1 },
      { b: 1, a: 2 },
      { n: 1 },
      'scalar',
    ];

    beforeAll(async () => {
      jobId = await runJob({ steps: pages.length, step_ms: 0, results: pages });
    });

    it('lists every page, failed ones with error_category and error_message', async () => {
      const res = await get(`/api/v1/jobs/${jobId}/results`);
      expect(res.body).toHaveLength(pages.length);
      expect(res.body[6]).toEqual({
        id: expect.stringMatching(ULID),
        url: 'test://job#6',
        status: 'failed',
        data: { name: 'failed' },
        error_category: 'http_error',
        error_message: 'HTTP 500',
        metadata: { method: null }, // no data was made
        warnings: [],
      });
      expect(res.body[0]).not.toHaveProperty('error_category');
      expect(res.body[0].metadata).toEqual({ method: 'model' });
      expect(res.body[2].metadata).toEqual({ method: 'selectors', program_id: 'prg_1', template_id: 'tpl_1' });
    });

    it('merges pages into one array by the merge rules', async () => {
      const res = await get(`/api/v1/jobs/${jobId}/results?merge=true`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(merged);
    });

    it('merges in every format', async () => {
      const jsonl = await get(`/api/v1/jobs/${jobId}/results?merge=true&format=jsonl`);
      expect(
        jsonl.text
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual(merged);
      const yaml = await get(`/api/v1/jobs/${jobId}/results?merge=true`, { accept: 'application/yaml' });
      expect(parseYaml(yaml.text)).toEqual(merged);
    });

    it('answers an empty list in every format for a job without results', async () => {
      const empty = await runJob({ steps: 0, step_ms: 0 });
      expect((await get(`/api/v1/jobs/${empty}/results`)).body).toEqual([]);
      expect((await get(`/api/v1/jobs/${empty}/results?merge=true`)).body).toEqual([]);
      expect((await get(`/api/v1/jobs/${empty}/results?format=jsonl`)).text).toBe('');
      expect(parseYaml((await get(`/api/v1/jobs/${empty}/results?format=yaml`)).text)).toEqual([]);
    });
  });

  describe('the job list: filters and total (issue 40, item 7)', () => {
    let key: string;
    let testJob: string;
    let refused: string;
    let crawl: string;
    let siteId: string;
    let between: string;
    const list = async (query = '') => {
      const res = await call('GET', `/api/v1/jobs${query}`, { key });
      expect([query, res.status]).toEqual([query, 200]);
      return res.body as { jobs: Array<Record<string, any>>; total: number };
    };
    const ids = async (query = '') => (await list(query)).jobs.map((job) => job.id as string);
    const terminal = async (id: string) =>
      waitFor(async () => ['completed', 'failed', 'cancelled'].includes((await call('GET', `/api/v1/jobs/${id}`, { key })).body.status));

    beforeAll(async () => {
      // A tenant of its own: its list holds exactly the jobs made here.
      key = (await call('POST', '/api/v1/users', { key: admin, body: { name: `job-list-${Date.now()}` } })).body.key.key;
      testJob = await runJob({ steps: 1, step_ms: 0 }, key);
      between = new Date().toISOString();
      // Refused by the address guard: a failed scrape job that says why.
      const scrape = await call('POST', '/api/v1/scrape', { key, body: { url: 'http://10.1.2.3/' } });
      expect([scrape.status, scrape.body.error_category]).toEqual([422, 'ssrf_blocked']);
      refused = scrape.body.job_id;
      const site = await call('POST', '/api/v1/sites', { key, body: { url: 'http://10.1.2.4/', name: 'refused site' } });
      expect(site.status).toBe(201);
      siteId = site.body.id;
      const started = await call('POST', '/api/v1/crawl', { key, body: { site_id: siteId, formats: ['markdown'] } });
      expect(started.status).toBe(202);
      crawl = started.body.job_id;
      await terminal(crawl);
    });

    it('counts every job in total, whatever the page', async () => {
      expect(await list()).toMatchObject({ total: 3, jobs: [{ id: crawl }, { id: refused }, { id: testJob }] });
      expect(await list('?limit=1&offset=1')).toMatchObject({ total: 3, jobs: [{ id: refused }] });
    });

    it('filters by status, type, site_id and creation time, total counting the matches', async () => {
      expect(await ids('?status=completed')).toEqual([testJob]);
      expect(await ids('?type=scrape')).toEqual([refused]);
      expect(await ids('?type=crawl&status=failed')).toEqual([crawl]);
      expect(await list(`?site_id=${siteId}`)).toMatchObject({ total: 1, jobs: [{ id: crawl }] });
      expect(await ids(`?since=${encodeURIComponent(between)}`)).toEqual([crawl, refused]);
      expect(await list('?status=running')).toEqual({ jobs: [], total: 0 });
    });

    it('lists the jobs the address guard refused by their error_category, each saying which address and how to open it', async () => {
      const blocked = await list('?error_category=ssrf_blocked');
      expect(blocked.jobs.map((job) => job.id)).toEqual([crawl, refused]);
      for (const job of blocked.jobs) {
        expect(job).toMatchObject({ status: 'failed', error_category: 'ssrf_blocked' });
        expect(job.error_message).toMatch(/10\.1\.2\.[34].*GLEANER_ALLOW_NETWORKS/);
      }
    });

    it('refuses filters the document does not allow (422 at the parameter)', async () => {
      for (const [query, location] of [
        ['?status=done', 'query.status'],
        ['?type=nope', 'query.type'],
        ['?since=yesterday', 'query.since'],
        ['?error_category=oops', 'query.error_category'],
      ]) {
        const res = await call('GET', `/api/v1/jobs${query}`, { key });
        expect([query, res.status, res.body.errors?.[0]?.location]).toEqual([query, 422, location]);
      }
    });
  });

  describe('download links', () => {
    let jobId: string;
    let otherJobId: string;

    beforeAll(async () => {
      jobId = await runJob({ steps: 2, step_ms: 0, results: [{ data: [{ k: 1 }, { k: 2 }] }, { data: { k: 1 } }] });
      otherJobId = await runJob({ steps: 1, step_ms: 0 });
    });

    it('answers a signed absolute link to this API, valid for one hour', async () => {
      const before = Math.floor(Date.now() / 1000);
      const res = await get(`/api/v1/jobs/${jobId}/download`);
      const after = Math.floor(Date.now() / 1000);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['download_url', 'expires_at', 'job_id']);
      expect(res.body.job_id).toBe(jobId);
      expect(res.body.download_url.startsWith(`${env.baseUrl}/api/v1/downloads/${jobId}?`)).toBe(true);
      const url = new URL(res.body.download_url);
      expect(url.searchParams.get('format')).toBe('json');
      expect(url.searchParams.get('sig')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      // One hour from when the server signed it, which happened between `before` and `after` (the
      // app shares this process's clock): bracketed, so a slow request cannot make it fail.
      const expires = Number(url.searchParams.get('expires'));
      expect(expires).toBeGreaterThanOrEqual(before + 3600);
      expect(expires).toBeLessThanOrEqual(after + 3600);
      expect(expires * 1000).toBe(Date.parse(res.body.expires_at));
    });

    it('serves the results file without a bearer key', async () => {
      const link = (await get(`/api/v1/jobs/${jobId}/download`)).body.download_url;
      const file = await fetch(link);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toMatch(/^application\/json/);
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${jobId}.json"`);
      expect(await file.json()).toEqual((await get(`/api/v1/jobs/${jobId}/results`)).body);
    });

    it('signs format and merge into the link', async () => {
      const link = (await get(`/api/v1/jobs/${jobId}/download?format=jsonl&merge=true`)).body.download_url;
      const file = await fetch(link);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toMatch(/^application\/x-ndjson/);
      expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${jobId}-merged.jsonl"`);
      expect(
        (await file.text())
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line)),
      ).toEqual([{ k: 1 }, { k: 2 }]);
      expect((await get(`/api/v1/jobs/${jobId}/download?format=xml`)).status).toBe(406);
      expect((await get(`/api/v1/jobs/${jobId}/download?merge=on`)).status).toBe(422);
    });

    it('refuses tampered links with 403', async () => {
      const link = new URL((await get(`/api/v1/jobs/${jobId}/download`)).body.download_url);
      const variants: Array<(url: URL) => void> = [
        (url) => (url.pathname = `/api/v1/downloads/${otherJobId}`),
        (url) => url.searchParams.set('format', 'yaml'),
        (url) => url.searchParams.set('format', 'csv'),
        (url) => url.searchParams.set('merge', 'true'),
        (url) => url.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600)),
        (url) => {
          const sig = url.searchParams.get('sig')!;
          url.searchParams.set('sig', (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1));
        },
        (url) => url.searchParams.set('sig', url.searchParams.get('sig')!.slice(0, 20)),
        (url) => url.searchParams.delete('sig'),
        (url) => url.searchParams.delete('expires'),
      ];
      for (const tamper of variants) {
        const url = new URL(link);
        tamper(url);
        const res = await http(env.baseUrl, 'GET', url.pathname + url.search);
        expect({ url: url.search, status: res.status, type: res.body?.type }).toEqual({
          url: url.search,
          status: 403,
          type: '/problems/forbidden',
        });
      }
      expect((await http(env.baseUrl, 'GET', link.pathname + link.search)).status).toBe(200);
    });

    it('refuses expired links with 403', async () => {
      const record = await env.app.get(JobsRepository).findForWorker(jobId);
      const caller: Caller = {
        userId: record!.user_id,
        organizationId: record!.organization_id,
        keyId: 'test',
        scopes: [],
        fullAccess: true,
        isAdmin: true,
      };
      const origin = { headers: { host: new URL(env.baseUrl).host }, protocol: 'http' };
      const expired = await env.app.get(ResultsService).downloadLink(caller, jobId, { format: 'jsonl' }, origin, -5);
      const res = await fetch(expired.download_url);
      expect(res.status).toBe(403);
      expect(((await res.json()) as { detail: string }).detail).toMatch(/expired/);
      const fresh = await env.app.get(ResultsService).downloadLink(caller, jobId, { format: 'jsonl' }, origin, 60);
      expect((await fetch(fresh.download_url)).status).toBe(200);
    });

    it('builds the link from X-Forwarded-* headers when they are well-formed', async () => {
      const forwarded = await get(`/api/v1/jobs/${jobId}/download`, {
        'x-forwarded-proto': 'https',
        'x-forwarded-host': 'gleaner.example.com',
      });
      expect(forwarded.body.download_url.startsWith(`https://gleaner.example.com/api/v1/downloads/${jobId}?`)).toBe(true);
      const hostile = await get(`/api/v1/jobs/${jobId}/download`, {
        'x-forwarded-proto': 'javascript',
        'x-forwarded-host': 'evil.example/x?',
      });
      expect(hostile.body.download_url.startsWith(`${env.baseUrl}/api/v1/downloads/${jobId}?`)).toBe(true);
    });

    it('answers 409 while the job runs, and results are readable meanwhile', async () => {
      // The job records two pages, then holds before the third at a gate that stays closed: it is
      // provably running (polling the gate) for as long as the test needs.
      const gates = await startGates();
      const created = await call('POST', '/api/v1/test-jobs', {
        key: admin,
        body: { steps: 3, step_ms: 0, hold_at: 2, gate_url: gates.urlOf('results-409') },
      });
      const id = created.body.id as string;
      try {
        await waitFor(async () => gates.polls('results-409') > 0);
        const partial = await get(`/api/v1/jobs/${id}/results`);
        expect(partial.body).toHaveLength(2);
        const res = await get(`/api/v1/jobs/${id}/download`);
        expect(res.status).toBe(409);
        expect(res.body.type).toBe('/problems/conflict');
      } finally {
        await call('POST', `/api/v1/jobs/${id}/cancel`, { key: admin });
        await gates.close();
      }
      expect((await get(`/api/v1/jobs/${id}/download`)).status).toBe(200); // cancelled is terminal
    });
  });

  describe('debug captures', () => {
    it('reports capture off for a job without capture_debug', async () => {
      const id = await runJob({ steps: 2, step_ms: 0 });
      const res = await get(`/api/v1/jobs/${id}/debug-capture`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body).toEqual({ job_id: id, enabled: false, captures: [] });
    });

    it('lists one capture per step with exactly the capture fields', async () => {
      const id = await runJob({ steps: 2, step_ms: 0, capture_debug: true, url: 'https://cap.example/' });
      expect((await get(`/api/v1/jobs/${id}`)).body.capture_debug).toBe(true);
      const res = await get(`/api/v1/jobs/${id}/debug-capture`);
      expect(res.body.job_id).toBe(id);
      expect(res.body.enabled).toBe(true);
      expect(res.body.captures).toHaveLength(2);
      const [first, second] = res.body.captures;
      expect(Object.keys(first).sort()).toEqual(
        ['hints_applied', 'id', 'job_type', 'prompt', 'raw_content', 'request', 'response', 'schema', 'timestamp', 'url'].sort(),
      );
      expect(first).toMatchObject({
        id: expect.stringMatching(ULID),
        job_type: 'test',
        url: 'https://cap.example/#0',
        prompt: 'Extract step 0',
        raw_content: 'content of https://cap.example/#0',
        hints_applied: { step: '0' },
        request: { content_size: 33, fetch_mode: 'static', model: 'test-model', prompt_size: 14, provider: 'test' },
        response: { duration_ms: 0, error: '', input_tokens: 0, output_tokens: 0, success: true },
      });
      expect(JSON.parse(first.schema)).toEqual({ type: 'object', properties: { step: { type: 'integer' } } });
      expect(first.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(second.url).toBe('https://cap.example/#1');
      expect((await get(`/api/v1/jobs/${id}/debug-capture`, {}, other)).status).toBe(404);
    });
  });
}
