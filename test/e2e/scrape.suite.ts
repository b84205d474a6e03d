/**
 * POST /scrape end to end against the docs fixture (two hosts), with the browser: every format, the
 * screenshot and its links, wait_for, per-request headers and cookies (never to another host, never
 * stored, logged or echoed), PDFs and their failures, the job's life (list, results, SSE, webhooks),
 * and fetch control on POST /extract. Run on both deployments.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ARTICLE_JSON_LD, SECRET_COOKIE, SECRET_HEADER, type DocsSite } from '../fixtures/docs-site/docs-site';
import type { ModelServer } from '../fixtures/model-server';
import type { WebhookReceiver } from '../fixtures/webhook-receiver';
import type { RunningApp } from './embedded-app';
import { http, readSse, waitFor } from './helpers';

export interface ScrapeEnv {
  app: RunningApp;
  site: DocsSite;
  models: ModelServer;
  receiver: WebhookReceiver;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const UA = 'ScrapeSuite/1.0';

function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  for (const name of readdirSync(dir)) {
    const file = join(dir, name);
    if (statSync(file).isDirectory()) hits.push(...filesContaining(file, needle));
    else if (readFileSync(file).includes(needle)) hits.push(file);
  }
  return hits;
}

export function scrapeSuite(getEnv: () => ScrapeEnv, options: { embedded: boolean }): void {
  let env: ScrapeEnv;
  let key: string;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key, ...opts });
  const scrape = (body: Record<string, unknown>) => call('POST', '/api/v1/scrape', { body });
  const docs = (path: string) => env.site.url('docs.test', path);
  const newTenant = async () =>
    (await http(env.app.baseUrl, 'POST', '/api/v1/users', { key: env.app.adminKey, body: { name: `s-${Date.now()}-${Math.random()}` } }))
      .body.key.key as string;

  beforeAll(() => {
    env = getEnv();
  });
  beforeEach(async () => {
    key = await newTenant();
    env.models.reset();
  });

  it('turns an article into markdown by default: tables, code, nested lists, images with alt text, absolute links, no chrome', async () => {
    const res = await scrape({ url: docs('/article') });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['markdown']);
    const md: string = res.body.data.markdown;
    expect(md).toContain('# Scraping without a schema');
    expect(md).toContain('| Format | Use |\n|---|---|\n| markdown | models |\n| text | search |');
    expect(md).toContain('```\ngleaner scrape https://example.com --as markdown\necho done\n```');
    expect(md).toContain('- First level\n  - Second level\n    - Third level\n- Another item');
    expect(md).toContain(`![Pipeline diagram](${docs('/img/diagram.png')})`);
    expect(md).not.toContain('spacer.gif');
    expect(md).toContain(`[introduction](${docs('/guide/intro')})`);
    expect(md).not.toMatch(/Pricing|Copyright Docs Inc|font-family|document\.write/);
    expect(res.body).toMatchObject({
      url: docs('/article'),
      metadata: { method: 'scrape', fetch_mode: 'static', status_code: 200, content_type: 'text/html' },
    });
    expect(res.body.fetched_at).toMatch(/Z$/);

    // A job like the others: listed, its result item, no model call and no cost.
    const job = await call('GET', `/api/v1/jobs/${res.body.job_id}`);
    expect(job.body).toMatchObject({
      type: 'scrape',
      status: 'completed',
      page_count: 1,
      failed_count: 0,
      cost_usd: 0,
      token_usage_input: 0,
    });
    const list = await call('GET', '/api/v1/jobs');
    expect(list.body.jobs.map((j: { id: string }) => j.id)).toContain(res.body.job_id);
    const items = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`)).body;
    expect(items).toEqual([
      expect.objectContaining({ status: 'completed', data: res.body.data, metadata: expect.objectContaining({ method: 'scrape' }) }),
    ]);
    expect(env.models.requests).toHaveLength(0);
    const sse = await readSse(`${env.app.baseUrl}/api/v1/jobs/${res.body.job_id}/stream`, { key, timeoutMs: 10_000 });
    expect(sse.events.map((e) => e.event)).toEqual(expect.arrayContaining(['result', 'complete']));
    expect(sse.events.find((e) => e.event === 'result')?.data.data.markdown).toBe(md);
  });

  it('returns every other format: text, cleaned HTML, the raw body, links with anchor text, page info', async () => {
    const res = await scrape({
      url: docs('/article'),
      formats: ['page_info', 'links', 'raw_html', 'html', 'text', 'text'],
      fetch_mode: 'static',
    });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(Object.keys(data)).toEqual(['text', 'html', 'raw_html', 'links', 'page_info']);
    expect(data.text).toContain('Scraping without a schema');
    expect(data.text).not.toMatch(/^#|\]\(/m);
    expect(data.html).toContain('<table>');
    expect(data.html).toContain(`<a href="${docs('/guide/intro')}">introduction</a>`);
    expect(data.html).not.toMatch(/<script|<nav|<style/);
    expect(data.raw_html).toContain('<nav><a href="/">Home</a>');
    const links: Array<{ url: string; text: string }> = data.links;
    expect(links.filter((l) => l.url === docs('/guide/intro'))).toEqual([{ url: docs('/guide/intro'), text: 'introduction' }]);
    expect(links).toContainEqual({ url: docs('/reference?v=2'), text: 'reference' });
    expect(links).toContainEqual({ url: env.site.url('other.test', '/landing'), text: 'another site' });
    expect(new Set(links.map((l) => l.url)).size).toBe(links.length);
    expect(data.page_info).toEqual({
      title: 'Scraping without a schema',
      description: 'How pages become markdown.',
      language: 'en',
      canonical_url: docs('/article'),
      open_graph: { 'og:title': 'Scraping, the OG title', 'og:type': 'article' },
      json_ld: [ARTICLE_JSON_LD],
      status_code: 200,
      content_type: 'text/html',
      document: null,
    });
  });

  it('tag filters: include_tags keeps only its elements, exclude_tags leaves elements out (markdown, text, html); a bad selector is a 422', async () => {
    const res = await scrape({
      url: docs('/article'),
      formats: ['markdown', 'text', 'html', 'links'],
      include_tags: ['table', 'header nav', 'pre'],
      exclude_tags: ['a[href="/pricing"]'],
    });
    expect(res.status).toBe(200);
    // In page order: the menu (chrome, here chosen), the table, the code; nothing else of the article.
    const md: string = res.body.data.markdown;
    expect(md).toMatch(/Home[\s\S]*Docs[\s\S]*\| Format \| Use \|[\s\S]*gleaner scrape/);
    expect(md).not.toMatch(/Pricing|Pages become|First level|Copyright/);
    expect(res.body.data.text).toContain('markdown');
    expect(res.body.data.text).not.toMatch(/Pricing|Pages become/);
    expect(res.body.data.html).toContain('<table>');
    expect(res.body.data.html).not.toMatch(/Pricing|Pages become/);
    // Links are the whole page's.
    expect(res.body.data.links.map((l: { url: string }) => l.url)).toContain(docs('/guide/intro'));
    const excluded = await scrape({ url: docs('/article'), exclude_tags: ['table', 'pre', 'ul'] });
    expect(excluded.body.data.markdown).toContain('# Scraping without a schema');
    expect(excluded.body.data.markdown).not.toMatch(/\| Format|gleaner scrape|First level/);

    const bad = await scrape({ url: docs('/article'), include_tags: ['div[', 'p'], exclude_tags: [''] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { location: string }) => e.location).sort()).toEqual(['body.exclude_tags', 'body.include_tags']);
  });

  it('takes a screenshot with the browser, readable with the key and through the signed link only', async () => {
    const res = await scrape({ url: docs('/article'), formats: ['screenshot', 'markdown'] });
    expect(res.status).toBe(200);
    expect(res.body.metadata.fetch_mode).toBe('dynamic');
    const path: string = res.body.data.screenshot;
    expect(path).toBe(`/api/v1/jobs/${res.body.job_id}/screenshots/${res.body.metadata.screenshot_id}`);
    const withKey = await fetch(`${env.app.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    expect(withKey.status).toBe(200);
    expect(withKey.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await withKey.arrayBuffer());
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
    expect(png.readUInt32BE(16)).toBe(1366);

    const signed = await fetch(res.body.metadata.screenshot_url);
    expect(signed.status).toBe(200);
    expect(Buffer.from(await signed.arrayBuffer()).equals(png)).toBe(true);
    expect(Date.parse(res.body.metadata.screenshot_expires_at)).toBeGreaterThan(Date.now());
    const tampered = await fetch(res.body.metadata.screenshot_url.replace(/sig=[^&]+/, 'sig=AAAA'));
    expect(tampered.status).toBe(403);
    const stranger = await newTenant();
    expect((await http(env.app.baseUrl, 'GET', path, { key: stranger })).status).toBe(404);
    expect((await fetch(`${env.app.baseUrl}${path}`)).status).toBe(401);

    const refused = await scrape({ url: docs('/article'), formats: ['screenshot'], fetch_mode: 'static' });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0]).toMatchObject({ location: 'body.formats' });
  });

  it('waits for late content with wait_for (auto renders), fails as a timeout when it never comes', async () => {
    const res = await scrape({ url: docs('/late'), wait_for: { selector: '#late' } });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('Late content arrived');
    expect(res.body.metadata.fetch_mode).toBe('dynamic');

    const late = await scrape({ url: docs('/late'), wait_for: { selector: '#never-there' }, timeout_ms: 3000 });
    expect(late.status).toBe(504);
    expect(late.body).toMatchObject({ error_category: 'timeout', job_id: expect.any(String) });
    expect((await call('GET', `/api/v1/jobs/${late.body.job_id}`)).body).toMatchObject({ status: 'failed', error_category: 'timeout' });

    for (const [body, location] of [
      [{ url: docs('/late'), wait_for: { selector: '#late' }, fetch_mode: 'static' }, 'body.wait_for'],
      [{ url: docs('/late'), wait_for: { selector: '#late', ms: 100 } }, 'body.wait_for'],
      [{ url: docs('/late'), wait_for: {} }, 'body.wait_for'],
      [{ url: docs('/late'), wait_for: { selector: 'div[' } }, 'body.wait_for.selector'],
      [{ url: docs('/late'), wait_for: { ms: 60_000 } }, 'body.wait_for.ms'],
    ] as const) {
      const bad = await scrape(body);
      expect(bad.status).toBe(422);
      expect(bad.body.errors.map((e: { location: string }) => e.location)).toContain(location);
    }
  });

  for (const mode of ['static', 'dynamic'] as const) {
    it(`${mode}: sends the caller's cookies and headers to the page's host only, never stores, logs or echoes them`, async () => {
      const cookie = await scrape({ url: docs('/needs-cookie'), fetch_mode: mode, cookies: { session: SECRET_COOKIE }, user_agent: UA });
      expect(cookie.status).toBe(200);
      expect(cookie.body.data.markdown).toContain('Welcome back, member.');
      const header = await scrape({ url: docs('/needs-header'), fetch_mode: mode, headers: { 'X-Api-Key': SECRET_HEADER } });
      expect(header.body.data.markdown).toContain('Key accepted.');
      // The Cookie header is read as cookies.
      const viaHeader = await scrape({ url: docs('/needs-cookie'), fetch_mode: mode, headers: { Cookie: `session=${SECRET_COOKIE}` } });
      expect(viaHeader.body.data.markdown).toContain('Welcome back, member.');

      const start = env.site.requests.length;
      const moved = await scrape({
        url: docs('/to-other'),
        fetch_mode: mode,
        cookies: { session: SECRET_COOKIE },
        headers: { 'X-Api-Key': SECRET_HEADER },
        user_agent: UA,
      });
      expect(moved.status).toBe(200);
      expect(moved.body.url).toBe(env.site.url('other.test', '/landing'));
      const seen = env.site.requests.slice(start);
      expect(seen.find((r) => r.host === 'docs.test' && r.path === '/to-other')).toMatchObject({ apiKey: SECRET_HEADER, userAgent: UA });
      const other = seen.filter((r) => r.host === 'other.test');
      expect(other.length).toBeGreaterThan(0);
      for (const r of other) {
        expect(r.apiKey).toBeUndefined();
        expect(r.cookie ?? '').not.toContain(SECRET_COOKIE);
      }

      for (const id of [cookie.body.job_id, header.body.job_id, moved.body.job_id]) {
        const job = await call('GET', `/api/v1/jobs/${id}`);
        const results = await call('GET', `/api/v1/jobs/${id}/results`);
        for (const text of [job.text, results.text]) {
          expect(text).not.toContain(SECRET_COOKIE);
          expect(text).not.toContain(SECRET_HEADER);
        }
      }
      expect(env.app.logs.text).not.toContain(SECRET_COOKIE);
      expect(env.app.logs.text).not.toContain(SECRET_HEADER);
      if (options.embedded) {
        expect(filesContaining(env.app.dataDir, SECRET_COOKIE)).toEqual([]);
        expect(filesContaining(env.app.dataDir, SECRET_HEADER)).toEqual([]);
      }
    });
  }

  it('refuses forbidden headers, bad values and a doubled user agent at the field, without echoing values', async () => {
    const host = await scrape({ url: docs('/article'), headers: { Host: 'evil.example', 'X-Ok': 'fine' } });
    expect(host.status).toBe(422);
    expect(host.body.errors).toEqual([expect.objectContaining({ location: 'body.headers', message: expect.stringMatching(/Host/) })]);
    expect(host.text).not.toContain('evil.example');
    const proxy = await scrape({ url: docs('/article'), headers: { 'Proxy-Authorization': 'Basic eA==' } });
    expect(proxy.status).toBe(422);
    const crlf = await scrape({ url: docs('/article'), headers: { 'X-Bad': `${SECRET_HEADER}\r\nInjected: 1` } });
    expect(crlf.status).toBe(422);
    expect(crlf.body.detail).toMatch(/does not match the API schema/);
    expect(crlf.text).not.toContain(SECRET_HEADER);
    const badName = await scrape({ url: docs('/article'), headers: { 'Bad Name': 'x' } });
    expect(badName.status).toBe(422);
    const cookieValue = await scrape({ url: docs('/article'), cookies: { session: 'a;b' } });
    expect(cookieValue.status).toBe(422);
    const twice = await scrape({ url: docs('/article'), user_agent: UA, headers: { 'User-Agent': 'Other/1' } });
    expect(twice.status).toBe(422);
    expect(twice.body.errors[0].location).toBe('body.user_agent');
    const proto = await call('POST', '/api/v1/scrape', {
      rawBody: `{"url":"${docs('/article')}","cookies":{"__proto__":"x"}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(422);
    expect(proto.body.errors[0].location).toBe('body.cookies');
    const format = await scrape({ url: docs('/article'), formats: ['pdf'] });
    expect(format.status).toBe(422);
    expect(format.body.errors[0].location).toBe('body.formats');
  });

  it('reads a PDF as markdown with pages, headings and its info; no HTML; failures have their category', async () => {
    const res = await scrape({ url: docs('/report.pdf'), formats: ['markdown', 'text', 'html', 'raw_html', 'page_info', 'screenshot'] });
    expect(res.status).toBe(200);
    expect(res.body.data.markdown).toContain('<!-- page 2 -->\n\n## Results\n\nRevenue grew by 12 percent to 4.2 million.');
    expect(res.body.data.markdown.startsWith('<!-- page 1 -->\n\n# Annual Report 2026')).toBe(true);
    expect(res.body.data.text).toContain('Revenue grew by 12 percent');
    expect(res.body.data).toMatchObject({ html: null, raw_html: null, screenshot: null });
    expect(res.body.data.page_info).toMatchObject({
      title: 'Annual Report 2026',
      content_type: 'application/pdf',
      document: { pages: 3, author: 'Ada Lovelace' },
    });
    const octet = await scrape({ url: docs('/report-octet'), fetch_mode: 'static' });
    expect(octet.body.data.markdown).toContain('## Outlook');

    for (const [path, category] of [
      ['/broken.pdf', 'document_invalid'],
      ['/locked.pdf', 'document_encrypted'],
      ['/long.pdf', 'content_too_large'],
      ['/image.png', 'unsupported_content'],
    ] as const) {
      const failed = await scrape({ url: docs(path), fetch_mode: 'static' });
      expect(failed.status).toBe(502);
      expect(failed.body).toMatchObject({ error_category: category });
      const items = (await call('GET', `/api/v1/jobs/${failed.body.job_id}/results`)).body;
      expect(items).toEqual([expect.objectContaining({ status: 'failed', error_category: category, metadata: { method: null } })]);
    }
  });

  it('announces the page to webhooks (job.page carries the formats)', async () => {
    const res = await scrape({
      url: docs('/article'),
      formats: ['markdown', 'links'],
      fetch_mode: 'static',
      webhook_url: `${env.receiver.url}/ok`,
    });
    expect(res.status).toBe(200);
    const got = await waitFor(async () => {
      const mine = env.receiver.ok('/ok').filter((r) => r.json.job_id === res.body.job_id);
      return mine.some((r) => r.json.type === 'job.completed') ? mine : null;
    });
    expect(got.map((r) => r.json.type)).toEqual(['job.started', 'job.page', 'job.completed']);
    const page = got[1].json;
    expect(page.job_type).toBe('scrape');
    expect((page.data as { data: { markdown: string } }).data.markdown).toBe(res.body.data.markdown);
  });

  it('a rendered page that navigates to a refused address is a refused page (422 ssrf_blocked), never the browser error page', async () => {
    const scraped = await scrape({ url: docs('/leave'), fetch_mode: 'dynamic', formats: ['markdown', 'html'] });
    expect(scraped.status).toBe(422);
    expect(scraped.body).toMatchObject({ error_category: 'ssrf_blocked', job_id: expect.any(String) });
    expect(scraped.text).not.toContain('chrome-error');
    expect((await call('GET', `/api/v1/jobs/${scraped.body.job_id}`)).body).toMatchObject({
      status: 'failed',
      error_category: 'ssrf_blocked',
    });
    const extracted = await call('POST', '/api/v1/extract', {
      body: {
        url: docs('/leave'),
        schema: { title: 'string' },
        fetch_mode: 'dynamic',
        llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-scrape-suite-key', base_url: env.models.openaiBaseUrl },
      },
    });
    expect(extracted.status).toBe(422);
    expect(extracted.body.error_category).toBe('ssrf_blocked');
    expect(env.models.requests).toEqual([]); // no model was asked about an error page
  });

  it('POST /extract takes the same fetch control: the model sees the page behind the cookie', async () => {
    const res = await call('POST', '/api/v1/extract', {
      body: {
        url: docs('/needs-cookie'),
        schema: { title: 'string' },
        fetch_mode: 'static',
        cookies: { session: SECRET_COOKIE },
        headers: { 'X-Api-Key': SECRET_HEADER },
        capture_debug: true,
        llm_config: { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-scrape-suite-key', base_url: env.models.openaiBaseUrl },
      },
    });
    expect(res.status).toBe(200);
    const sent = env.models.requests.find((r) => r.userText.includes('Welcome back, member.'));
    expect(sent).toBeDefined();
    const capture = await call('GET', `/api/v1/jobs/${res.body.job_id}/debug-capture`);
    const job = await call('GET', `/api/v1/jobs/${res.body.job_id}`);
    for (const text of [capture.text, job.text]) {
      expect(text).not.toContain(SECRET_COOKIE);
      expect(text).not.toContain(SECRET_HEADER);
    }
    const wrong = await call('POST', '/api/v1/extract', {
      body: { url: docs('/needs-cookie'), schema: { title: 'string' }, fetch_mode: 'static', wait_for: { ms: 10 } },
    });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].location).toBe('body.wait_for');
  });

  it('the json format: markdown and the schema extracted in one call, with provenance, tokens and cost (the model read the markdown)', async () => {
    const llm = { provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-scrape-json-key', base_url: env.models.openaiBaseUrl };
    const res = await scrape({
      url: docs('/article'),
      formats: ['json', 'markdown'],
      schema: { title: 'string' },
      prompt: 'Take the title from the main heading.',
      provenance: 'full',
      llm_config: llm,
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.data)).toEqual(['markdown', 'json']);
    expect(res.body.data.json).toEqual({ title: 'Scraping without a schema' });
    expect(res.body.metadata).toMatchObject({
      method: 'scrape',
      model_call: 'full',
      model: 'gpt-4o-mini',
      provider: 'openai',
      ungrounded_fields: 0,
      fields: { title: expect.objectContaining({ source: 'model', grounded: true }) },
    });
    expect(res.body.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), is_byok: true });
    expect(res.body.usage.input_tokens).toBeGreaterThan(0);
    // One model call, with the BYOK key, the prompt and the page's markdown (the same text the markdown format gives).
    expect(env.models.requests).toHaveLength(1);
    const [sent] = env.models.requests;
    expect(sent.apiKey).toBe('sk-scrape-json-key');
    expect(`${sent.system}\n${sent.userText}`).toContain('Take the title from the main heading.');
    expect(sent.userText).toContain('Scraping without a schema');
    // The job counts the call's tokens and cost; its result item names the model; the key is nowhere.
    const job = await call('GET', `/api/v1/jobs/${res.body.job_id}`);
    expect(job.body).toMatchObject({ type: 'scrape', status: 'completed', page_count: 1, token_usage_input: res.body.usage.input_tokens });
    expect(job.text).not.toContain('sk-scrape-json-key');
    const [item] = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`)).body;
    expect(item).toMatchObject({ data: res.body.data, metadata: { method: 'scrape', model: 'gpt-4o-mini', provider: 'openai' } });
  });

  it('the json format: a model failure fails the scrape with its category; no usable model is a 422 before any job', async () => {
    const failing = await scrape({
      url: docs('/article'),
      formats: ['markdown', 'json'],
      schema: { title: 'string' },
      llm_config: { provider: 'openai', model: 'invalid-json', api_key: 'sk-scrape-json-key', base_url: env.models.openaiBaseUrl },
    });
    expect(failing.status).toBe(502);
    expect(failing.body).toMatchObject({ error_category: 'llm_invalid_output', job_id: expect.any(String) });
    const job = await call('GET', `/api/v1/jobs/${failing.body.job_id}`);
    expect(job.body).toMatchObject({ status: 'failed', failed_count: 1 });
    expect(job.body.token_usage_input).toBeGreaterThan(0); // the failed call was paid for
    const before = (await call('GET', '/api/v1/jobs')).body.jobs.length;
    const none = await scrape({ url: docs('/article'), formats: ['json'], schema: { title: 'string' } });
    expect(none.status).toBe(422);
    expect(none.body.error_category).toBe('no_models');
    expect((await call('GET', '/api/v1/jobs')).body.jobs.length).toBe(before);
  });

  it('the json format: its fields without it, and it without a schema, are 422s at the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ formats: ['markdown', 'json'] }, 'body.schema'],
      [{ formats: ['markdown'], schema: { title: 'string' } }, 'body.schema'],
      [{ schema_id: 'sch_x' }, 'body.schema_id'],
      [{ prompt: 'Titles.' }, 'body.prompt'],
      [{ formats: ['json'], schema: { title: 'string' }, prompt: '' }, 'body.prompt'],
      [{ grounding: 'fail_page' }, 'body.grounding'],
    ];
    for (const [body, location] of cases) {
      const res = await scrape({ url: docs('/article'), ...body });
      expect([res.status, res.body.errors?.[0]?.location]).toEqual([422, location]);
    }
    expect(env.models.requests).toEqual([]);
  });
}
