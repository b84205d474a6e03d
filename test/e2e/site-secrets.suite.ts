/**
 * A saved site's headers and cookies on the single-page requests that name it (POST /extract and
 * POST /analyze), as on a crawl of the site: under the request's own name by name, sealed with the job,
 * to the site's host only (another host is a 422 at body.url before any request), never in the job,
 * result, capture, store, logs or error. On the crawl playground's auth.test (a page needs a session
 * cookie and an X-Key header); run on both deployments by crawl.e2e-spec.ts.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AUTH_SITE_SECRETS } from '../fixtures/playground/playground';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import type { CrawlEnv } from './crawl.suite';
import { http } from './helpers';

const { session, key } = AUTH_SITE_SECRETS;
const SECRET = new RegExp(`${session}|${key}`);

function filesContaining(dir: string, pattern: RegExp): string[] {
  const hits: string[] = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) hits.push(...filesContaining(file, pattern));
    else if (pattern.test(readFileSync(file, 'latin1'))) hits.push(file);
  }
  return hits;
}

export function siteSecretsSuite(getEnv: () => CrawlEnv): void {
  describe("a saved site's headers and cookies on extract and analyze", () => siteSecretsTests(getEnv));
}

function siteSecretsTests(getEnv: () => CrawlEnv): void {
  let env: CrawlEnv;
  let siteId: string;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-site-secrets', base_url: env.models.openaiBaseUrl });
  const extract = (body: Record<string, unknown>) =>
    call('POST', '/api/v1/extract', { body: { site_id: siteId, schema: { name: 'string' }, llm_config: llm(), ...body } });
  const analyze = (body: Record<string, unknown>) =>
    call('POST', '/api/v1/analyze', { body: { site_id: siteId, llm_config: llm(), debug: true, ...body } });
  /** Page requests auth.test (or another host) received since `since` (robots.txt left out). */
  const seen = (host: string, since: number) =>
    env.play.requests.filter((r) => r.host === host && r.at >= since && r.path !== '/robots.txt');

  /** Everything a job leaves readable: its record (API and store), its results and its capture. */
  async function recorded(jobId: string): Promise<string[]> {
    const store = env.app.app.get<symbol, DocumentStore>(DOCUMENT_STORE);
    const jobs = await store.collection({ name: 'jobs', indexes: [] });
    return [
      (await call('GET', `/api/v1/jobs/${jobId}`)).text,
      (await call('GET', `/api/v1/jobs/${jobId}/results`)).text,
      (await call('GET', `/api/v1/jobs/${jobId}/debug-capture`)).text,
      JSON.stringify(await jobs.findOne({ _id: jobId })),
    ];
  }

  beforeAll(async () => {
    env = getEnv();
    const created = await call('POST', '/api/v1/sites', {
      body: {
        url: env.play.url('auth.test', '/'),
        fetch_mode: 'static',
        crawl_options: { headers: { 'X-Key': key }, cookies: { session } },
      },
    });
    expect(created.status).toBe(201);
    siteId = created.body.id;
  });

  it("POST /extract with a site: the site's cookie and header reach its page, sealed with the job, never recorded", async () => {
    const since = Date.now();
    const res = await extract({ url: env.play.url('auth.test', '/p/1'), capture_debug: true });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ name: 'Member page' });
    expect(seen('auth.test', since).map((r) => [r.path, r.status, r.cookie, r.key])).toEqual([['/p/1', 200, `session=${session}`, key]]);
    for (const text of [res.text, ...(await recorded(res.body.job_id))]) expect(text).not.toMatch(SECRET);

    // Without a url the site's own URL is the page.
    const own = await extract({});
    expect(own.status).toBe(200);
    expect(own.body.data).toEqual({ name: 'Members' });
  });

  it("POST /extract: the request's own cookie and header win name by name; the site's others still go", async () => {
    const cookieSince = Date.now();
    const cookie = await extract({ cookies: { session: 'abc' } });
    expect(cookie.status).toBe(200);
    expect(seen('auth.test', cookieSince).map((r) => [r.path, r.cookie, r.key])).toEqual([['/', 'session=abc', key]]);
    // A header given in another case replaces the site's; a Cookie header's cookie replaces the site's cookie.
    const headerSince = Date.now();
    const header = await extract({ headers: { 'x-key': 'k', Cookie: 'session=abc' }, user_agent: 'Mine/1' });
    expect(header.status).toBe(200);
    expect(seen('auth.test', headerSince).map((r) => [r.path, r.cookie, r.key, r.userAgent])).toEqual([
      ['/', 'session=abc', 'k', 'Mine/1'],
    ]);
    // A wrong value of the request's own is sent as given (the site's does not fill in): the page refuses it.
    const wrongSince = Date.now();
    const wrong = await extract({ headers: { 'X-Key': 'wrong' } });
    expect(wrong.status).toBe(502);
    expect(seen('auth.test', wrongSince).map((r) => [r.status, r.cookie, r.key])).toEqual([[403, `session=${session}`, 'wrong']]);
    expect(wrong.text).not.toMatch(SECRET);
  });

  it("POST /extract with a site: the site's saved user_agent is the page's User-Agent unless the request gives its own", async () => {
    const created = await call('POST', '/api/v1/sites', {
      body: {
        url: env.play.url('auth.test', '/'),
        fetch_mode: 'static',
        crawl_options: { headers: { 'X-Key': key }, cookies: { session }, user_agent: 'SiteAgent/1' },
      },
    });
    expect(created.status).toBe(201);
    const withAgent = (body: Record<string, unknown>) =>
      call('POST', '/api/v1/extract', {
        body: { site_id: created.body.id, schema: { name: 'string' }, llm_config: llm(), url: env.play.url('auth.test', '/p/1'), ...body },
      });
    const savedSince = Date.now();
    expect((await withAgent({})).status).toBe(200);
    expect(seen('auth.test', savedSince).map((r) => [r.path, r.userAgent, r.key])).toEqual([['/p/1', 'SiteAgent/1', key]]);
    const ownSince = Date.now();
    expect((await withAgent({ headers: { 'User-Agent': 'Mine/2' } })).status).toBe(200);
    expect(seen('auth.test', ownSince).map((r) => [r.path, r.userAgent])).toEqual([['/p/1', 'Mine/2']]);
  });

  it("POST /analyze with a site: the site's cookie and header reach its page and its linked pages on the host, no other host", async () => {
    const since = Date.now();
    const res = await analyze({ depth: 1 });
    expect(res.status).toBe(200);
    const auth = seen('auth.test', since);
    expect(auth.map((r) => r.path)).toContain('/');
    expect(auth.every((r) => r.status === 200 && r.cookie === `session=${session}` && r.key === key)).toBe(true);
    expect(seen('other.test', since).every((r) => r.cookie === undefined && r.key === undefined)).toBe(true);
    expect(env.models.requests.some((r) => r.userText.includes('Name: Members'))).toBe(true);
    for (const text of [res.text, ...(await recorded(res.body.job_id))]) expect(text).not.toMatch(SECRET);
  });

  it('a URL on another host is a 422 at body.url naming it, before any job or request; never a secret in it or the logs', async () => {
    const elsewhere = env.play.url('other.test', '/refused-by-site-secrets');
    const since = Date.now();
    for (const refused of [
      await extract({ url: elsewhere }),
      await analyze({ url: elsewhere }),
      await extract({ url: elsewhere, cookies: { session: 'abc' } }),
    ]) {
      expect(refused.status).toBe(422);
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      expect(refused.body.errors).toEqual([
        {
          location: 'body.url',
          message: expect.stringContaining(
            `only sent to its own host (${new URL(env.play.url('auth.test', '/')).host}); this URL is on another host`,
          ),
          value: elsewhere,
        },
      ]);
      expect(refused.text).not.toMatch(SECRET);
    }
    expect(seen('other.test', since)).toEqual([]);
    // No job was recorded for it (the newest jobs are the suite's earlier ones).
    expect((await call('GET', '/api/v1/jobs?limit=20')).text).not.toContain('/refused-by-site-secrets');

    // Never logged, never in the clear in any file the deployment wrote.
    expect(env.app.logs.text).not.toMatch(SECRET);
    expect(filesContaining(env.app.dataDir, SECRET)).toEqual([]);
  });
}
