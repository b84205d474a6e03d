/**
 * Duplicates end to end (docs/dedup.md) over the playground's `dup.test` (test/fixtures/dup-site.ts): templated product
 * pages that must each be extracted, and copies of them reached under other addresses (a tracking parameter, a print
 * view, an AMP layout with rel=canonical, a sort parameter, an article with a changed timestamp, an old address that
 * redirects, the `www.` host whose rel=canonical names the bare one). A crawl with `canonicalize: strict`,
 * `dedupe: near` and `copy_duplicates` names each duplicate's original and reason in the crawl map, calls the model once
 * per original only, counts the duplicates and saved calls on the job and in Prometheus, copies the originals' results
 * and learns the www alias from rel=canonical; a crawl with the defaults still honours rel=canonical and redirects; a
 * batch deduplicates its list the same way. Run on both deployments by dedup.e2e-spec.ts. One page at a time
 * (`concurrency: 1`): which of two copies is the original is then the page met first, so the expected map is exact.
 */
import type { ModelServer } from '../fixtures/model-server';
import type { Playground } from '../fixtures/playground/playground';
import type { RunningApp } from './embedded-app';
import { http, waitFor } from './helpers';

export interface DedupEnv {
  app: RunningApp;
  play: Playground;
  models: ModelServer;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

interface MapEntry {
  url: string;
  status: string;
  error_category: string | null;
  duplicate_of: string | null;
  duplicate_reason: string | null;
  similarity: number | null;
  result_id: string | null;
}

export function dedupSuite(getEnv: () => DedupEnv): void {
  let env: DedupEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-dedup-test', base_url: env.models.openaiBaseUrl });
  const bare = (path: string) => env.play.url('dup.test', path);
  /** A URL as the crawl map shows it: the path and query on its host (`www:` for the www host). */
  const short = (url: string | null) => {
    if (url === null) return null;
    const u = new URL(url);
    return `${u.hostname === 'www.dup.test' ? 'www:' : ''}${u.pathname}${u.search}`;
  };
  const finished = async (jobId: string) =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return TERMINAL.includes(job.status) ? job : null;
    }, 150_000);
  const started = async (path: string, body: unknown) => {
    const res = await call('POST', path, { body });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    return res.body.job_id as string;
  };
  const mapOf = async (jobId: string) => (await call('GET', `/api/v1/jobs/${jobId}/crawl-map?limit=500`)).body as { entries: MapEntry[] };
  /** The pages the model was asked about since `since` (the model server is shared by both deployments' runs). */
  const modelPages = (since: number) =>
    env.models.requests
      .slice(since)
      .map((r) => /^Page URL: (\S+)$/m.exec(r.userText)?.[1])
      .filter((u): u is string => typeof u === 'string' && u.includes('dup.test'))
      .map(short)
      .sort();

  beforeAll(() => {
    env = getEnv();
  });

  it('strict, near, copies: every duplicate named with its original and reason, one model call per original, templated pages all kept', async () => {
    const since = env.models.requests.length;
    const trackingFetches = env.play.requestsTo('dup.test', '/p/1?').length; // the playground serves both deployments
    const jobId = await started('/api/v1/crawl', {
      url: bare('/'),
      schema: { name: 'string' },
      llm_config: llm(),
      options: {
        max_depth: 2,
        max_pages: 50,
        concurrency: 1,
        respect_robots: false,
        canonicalize: 'strict',
        dedupe: 'near',
        copy_duplicates: true,
      },
    });
    const job = await finished(jobId);
    expect(job.status).toBe('completed');
    const { entries } = await mapOf(jobId);
    const rows = entries
      .filter((e) => e.status !== 'skipped' || e.error_category === 'duplicate')
      .map((e) => [short(e.url), e.status, e.duplicate_reason, short(e.duplicate_of)])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(rows).toEqual(
      [
        ['/', 'completed', null, null],
        ['/help', 'failed', null, null], // the navigation's link to a page the site does not have
        ['/news/1', 'completed', null, null],
        ['/news/1/updated', 'skipped', 'near', '/news/1'],
        ['/old/6', 'skipped', 'redirect', '/p/6'],
        ...Array.from({ length: 8 }, (_, k) => [`/p/${k + 1}`, 'completed', null, null]),
        ['/p/2/print', 'skipped', 'near', '/p/2'],
        ['/p/3/amp', 'skipped', 'canonical', '/p/3'],
        ['/p/4?sort=price', 'skipped', 'exact', '/p/4'],
        // rel=canonical on the www host named its bare twin: the link it carries to www.dup.test/team was read as the bare one.
        ['/team', 'completed', null, null],
        ['www:/about', 'completed', null, null],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    // The tracking-parameter variant of /p/1 is /p/1 under strict rules: never an entry of its own, never fetched.
    expect(entries.some((e) => e.url.includes('utm_source'))).toBe(false);
    expect(env.play.requestsTo('dup.test', '/p/1?').length).toBe(trackingFetches);
    const near = entries.find((e) => short(e.url) === '/p/2/print')!;
    expect(near.similarity).toBeGreaterThanOrEqual(0.85);
    expect(near.similarity).toBeLessThanOrEqual(1);
    expect(entries.find((e) => short(e.url) === '/p/4?sort=price')!.similarity).toBe(1);
    expect(entries.find((e) => short(e.url) === '/p/3/amp')!.similarity).toBeNull();

    // One model call per original, none for a duplicate (the redirect's target was extracted on its own).
    const originals = ['/', '/news/1', '/team', 'www:/about', ...Array.from({ length: 8 }, (_, k) => `/p/${k + 1}`)].sort();
    expect(modelPages(since)).toEqual(originals);
    expect(job).toMatchObject({
      page_count: originals.length,
      duplicates: { canonical: 1, exact: 1, near: 2, redirect: 1 },
      model_calls_saved: 4,
    });
    const map = await mapOf(jobId);
    expect(map).toMatchObject({ skipped_by_reason: expect.objectContaining({ duplicate: 5 }) });

    // copy_duplicates: each duplicate has a result of its own, its original's data, no tokens or cost, naming the original.
    const results = (await call('GET', `/api/v1/jobs/${jobId}/results`)).body as Array<{
      id: string;
      url: string;
      data: { name: string };
      metadata: { duplicate_of?: string };
    }>;
    // Failed pages (the navigation's /help) keep their failed item.
    expect(results).toHaveLength(job.page_count + job.failed_count + 5);
    const byPath = new Map(results.map((r) => [short(r.url), r]));
    for (const [copy, original] of [
      ['/p/2/print', '/p/2'],
      ['/p/3/amp', '/p/3'],
      ['/p/4?sort=price', '/p/4'],
      ['/news/1/updated', '/news/1'],
      ['/old/6', '/p/6'],
    ]) {
      const item = byPath.get(copy)!;
      expect([copy, item.data, short(item.metadata.duplicate_of ?? null)]).toEqual([copy, byPath.get(original)!.data, original]);
      expect(byPath.get(original)!.metadata.duplicate_of).toBeUndefined();
      // The crawl map links the copy.
      expect(entries.find((e) => short(e.url) === copy)!.result_id).toBe(item.id);
    }
    // Templated records are never merged: every product has its own data.
    expect(new Set(Array.from({ length: 8 }, (_, k) => byPath.get(`/p/${k + 1}`)!.data.name)).size).toBe(8);

    const metrics = (await http(env.app.baseUrl, 'GET', '/metrics')).text;
    const counter = (reason: string) =>
      Number(new RegExp(`gleaner_crawl_duplicates_total\\{[^}]*reason="${reason}"[^}]*\\} (\\d+)`).exec(metrics)?.[1] ?? -1);
    expect(counter('near')).toBeGreaterThanOrEqual(2);
    expect(counter('canonical')).toBeGreaterThanOrEqual(1);
    expect(Number(/gleaner_crawl_model_calls_saved_total(?:\{[^}]*\})? (\d+)/.exec(metrics)?.[1] ?? -1)).toBeGreaterThanOrEqual(4);
  });

  it('the defaults: rel=canonical and redirects still name their original; no text compared, no copies, no www alias', async () => {
    const since = env.models.requests.length;
    const jobId = await started('/api/v1/crawl', {
      url: bare('/'),
      schema: { name: 'string' },
      llm_config: llm(),
      options: { max_depth: 2, max_pages: 50, concurrency: 1, respect_robots: false },
    });
    const job = await finished(jobId);
    expect(job).toMatchObject({
      status: 'completed',
      duplicates: { canonical: 2, exact: 0, near: 0, redirect: 1 },
      model_calls_saved: 2,
    });
    const { entries } = await mapOf(jobId);
    const skipped = entries
      .filter((e) => e.error_category === 'duplicate')
      .map((e) => [short(e.url), e.duplicate_reason, short(e.duplicate_of)])
      .sort();
    // The www host's product page (reached from www.dup.test/about's navigation) names the bare one: a duplicate, but no alias.
    expect(skipped).toEqual([
      ['/old/6', 'redirect', '/p/6'],
      ['/p/3/amp', 'canonical', '/p/3'],
      ['www:/p/1', 'canonical', '/p/1'],
    ]);
    // Text copies are extracted (dedupe off), tracking parameters kept (default rules), the www host's link kept as it is.
    const done = new Set(entries.filter((e) => e.status === 'completed').map((e) => short(e.url)));
    for (const path of [
      '/p/2/print',
      '/p/4?sort=price',
      '/news/1/updated',
      '/p/1?utm_source=news&utm_medium=email',
      'www:/team',
      'www:/about',
    ])
      expect([path, done.has(path)]).toEqual([path, true]);
    expect(done.has('/team')).toBe(false);
    expect(modelPages(since)).toContain('/p/2/print');
    const results = (await call('GET', `/api/v1/jobs/${jobId}/results`)).body as unknown[];
    expect(results).toHaveLength(job.page_count + job.failed_count);
  });

  it('a batch: its list deduplicated by strict rules at intake, then text copies skipped and copied', async () => {
    const since = env.models.requests.length;
    const res = await call('POST', '/api/v1/batch/extract', {
      body: {
        urls: [bare('/p/1'), bare('/p/1?utm_source=x'), bare('/p/2'), bare('/p/2/print'), bare('/p/5?sort=price'), bare('/p/5')],
        schema: { name: 'string' },
        llm_config: llm(),
        options: { concurrency: 1, canonicalize: 'strict', dedupe: 'exact', copy_duplicates: true },
      },
    });
    expect([res.status, res.status === 202 ? null : res.text]).toEqual([202, null]);
    expect(res.body.duplicates.map((d: { url: string }) => short(d.url))).toEqual(['/p/1?utm_source=x']);
    const job = await finished(res.body.job_id);
    // `exact` takes the print view (other words) for a page of its own; the sort variant has the same text.
    expect(job).toMatchObject({ status: 'completed', page_count: 4, duplicates: { exact: 1, near: 0 }, model_calls_saved: 1 });
    expect(modelPages(since)).toEqual(['/p/1', '/p/2', '/p/2/print', '/p/5?sort=price'].sort());
    const results = (await call('GET', `/api/v1/jobs/${res.body.job_id}/results`)).body as Array<{ url: string; metadata: object }>;
    expect(results.map((r) => short(r.url)).sort()).toEqual(['/p/1', '/p/2', '/p/2/print', '/p/5', '/p/5?sort=price'].sort());
    expect(results.find((r) => short(r.url) === '/p/5')!.metadata).toMatchObject({ duplicate_of: bare('/p/5?sort=price') });
  });

  it('refuses a bad option with a problem naming it', async () => {
    for (const options of [{ dedupe: 'fuzzy' }, { copy_duplicates: 'yes' }, { canonicalize: 'loose' }]) {
      const res = await call('POST', '/api/v1/crawl', { body: { url: bare('/'), schema: { name: 'string' }, llm_config: llm(), options } });
      expect(res.status).toBe(422);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(JSON.stringify(res.body.errors)).toContain(Object.keys(options)[0]);
    }
  });
}
