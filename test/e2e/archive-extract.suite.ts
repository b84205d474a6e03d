/**
 * An extract's page in the archive end to end (docs/archive.md "Extracts"): `archive: true` keeps the
 * fetched page exactly as a crawl keeps one (the same record), so the page route, the WARC export, a
 * re-extraction without a request to the site, the deletion of the job and the retention work on it;
 * the default (false), the saved site's setting and the request's value over it; another tenant finds
 * nothing. Run on both deployments by archive.e2e-spec.ts.
 */
import { ArchiveRetentionService } from '@app/archive';
import { DOCUMENT_STORE, type DocumentStore } from '@app/storage';
import { fetchFromSite, readWithWarcio } from './archive-helpers';
import type { ArchiveEnv } from './archive.suite';
import { http, waitFor } from './helpers';

const SCHEMA = { name: 'string' };
const NEW_SCHEMA = { title: 'string' };

export function archiveExtractSuite(getEnv: () => ArchiveEnv): void {
  let env: ArchiveEnv;
  const call = (method: string, path: string, opts: Parameters<typeof http>[3] = {}) =>
    http(env.app.baseUrl, method, path, { key: env.app.adminKey, ...opts });
  const llm = () => ({ provider: 'openai', model: 'gpt-4o-mini', api_key: 'sk-archive-test', base_url: env.models.openaiBaseUrl });
  const finished = (jobId: string): Promise<any> =>
    waitFor(async () => {
      const job = (await call('GET', `/api/v1/jobs/${jobId}`)).body;
      return ['completed', 'failed', 'cancelled'].includes(job.status) ? job : null;
    }, 120_000);
  const results = async (jobId: string): Promise<any[]> => (await call('GET', `/api/v1/jobs/${jobId}/results`)).body;
  const download = async (path: string, key = env.app.adminKey) => {
    const response = await fetch(`${env.app.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
  };
  const extract = async (body: Record<string, unknown>) => {
    const answer = await call('POST', '/api/v1/extract', { body: { schema: SCHEMA, llm_config: llm(), ...body } });
    expect(answer.status).toBe(200);
    return answer.body as { job_id: string; data: any };
  };
  const collection = async (name: string) => env.app.app.get<DocumentStore>(DOCUMENT_STORE).collection<any>({ name, indexes: [] });
  /** A host of the playground no other test fetches: its pages' bodies are this test's alone. */
  const freshHost = () => `h${Date.now() % 1_000_000_000}${Math.floor(Math.random() * 1000)}.test`;

  beforeAll(() => {
    env = getEnv();
  });

  it('archive: true keeps the page as a crawl keeps it: read back, exported, re-extracted without a request to the site', async () => {
    const host = freshHost();
    const url = env.play.url(host, '/p/1');
    const crawled = await call('POST', '/api/v1/crawl', { body: { url, schema: SCHEMA, llm_config: llm(), options: { max_depth: 0 } } });
    const crawl = await finished(crawled.body.job_id);
    expect(crawl).toMatchObject({ status: 'completed', page_count: 1 });

    const answer = await extract({ url, archive: true });
    expect(answer.data.name).toContain(host);
    const [item] = await results(answer.job_id);

    // The same record a crawl keeps of the same page (and the same body: stored once, referenced twice).
    const pages = await collection('archive_pages');
    const [fromCrawl] = await pages.find({ job_id: crawl.id });
    const [fromExtract] = await pages.find({ job_id: answer.job_id });
    expect(Object.keys(fromExtract).sort()).toEqual(Object.keys(fromCrawl).sort());
    const fetchFacts = (r: any) => ({
      url: r.url,
      final_url: r.final_url,
      status: r.status,
      header_names: Object.keys(r.headers).sort(),
      redirects: r.redirects,
      fetch_mode: r.fetch_mode,
      content_type: r.content_type,
      charset: r.charset,
      body_sha256: r.body_sha256,
      body_bytes: r.body_bytes,
      rendered_sha256: r.rendered_sha256,
      origin: r.origin,
      failure: r.failure ?? null,
    });
    expect(fetchFacts(fromExtract)).toEqual(fetchFacts(fromCrawl));
    expect(fromExtract).toMatchObject({ job_id: answer.job_id, key: 'single' });

    // GET .../page, raw and as the text the model saw.
    const direct = await fetchFromSite(url);
    const page = await download(`/api/v1/jobs/${answer.job_id}/results/${item.id}/page`);
    expect(page.status).toBe(200);
    expect(page.body.equals(direct.body)).toBe(true);
    expect(page.headers.get('content-type')).toBe(direct.contentType);
    expect(page.headers.get('content-disposition')).toBe(`attachment; filename="page-${item.id}.html"`);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('content-security-policy')).toBe('sandbox');
    const text = await download(`/api/v1/jobs/${answer.job_id}/results/${item.id}/page?view=text`);
    expect(text.status).toBe(200);
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(text.body.toString('utf8')).toContain(`Name: ${host} page 1`);

    // WARC out: the one page, tied to the extract's result, every digest right.
    const warc = await download(`/api/v1/jobs/${answer.job_id}/warc`);
    expect(warc.status).toBe(200);
    const read = readWithWarcio(warc.body);
    expect(read.records.map((r) => r.type)).toEqual(['warcinfo', 'request', 'response', 'metadata']);
    expect(read.records.every((r) => r.type === 'warcinfo' || r.digest_passed)).toBe(true);
    expect(JSON.parse(read.records[3].content)).toMatchObject({ result_id: item.id, gleaner_job_id: answer.job_id });

    // Re-extraction with a new schema: a reextract job on the crawl engine, and not one request to the site.
    const requestsBefore = env.play.requestsTo(host).length;
    const started = await call('POST', `/api/v1/jobs/${answer.job_id}/reextract`, { body: { schema: NEW_SCHEMA, llm_config: llm() } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({ source_job_id: answer.job_id, page_count: 1 });
    const job = await finished(started.body.job_id);
    expect(job).toMatchObject({ type: 'reextract', status: 'completed', source_job_id: answer.job_id, page_count: 1 });
    expect(env.play.requestsTo(host)).toHaveLength(requestsBefore);
    const [again] = await results(job.id);
    expect(Object.keys(again.data)).toEqual(['title']);
    expect(again.url).toBe(url);
    const map = (await call('GET', `/api/v1/jobs/${job.id}/crawl-map`)).body;
    expect(map).toMatchObject({ completed: 1, failed: 0, skipped: 0 });
    // Its page is the extract's, copied: it can be read back, exported and re-extracted in turn.
    const copied = await download(`/api/v1/jobs/${job.id}/results/${again.id}/page`);
    expect(copied.body.equals(direct.body)).toBe(true);
    // A finished extract only: a running one, an analyze or scrape job is a 409 (the type keeps no page).
    const scraped = await call('POST', '/api/v1/scrape', { body: { url, formats: ['markdown'] } });
    const refused = await call('POST', `/api/v1/jobs/${scraped.body.job_id}/reextract`, { body: { llm_config: llm() } });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toMatch(/crawl, batch, extract, reextract and warc-extract jobs do/);
  });

  it("DELETE /jobs/{id} and the retention remove an extract's page and every body only it referenced", async () => {
    const host = freshHost();
    const pages = await collection('archive_pages');
    // Bodies are documents of archive_pages (docs/archive.md "Where it is kept").
    const blobs = { count: (filter: { sha256: string }) => pages.count({ ...filter, kind: 'body' }) };
    const bodyOf = async (jobId: string) => (await pages.find({ job_id: jobId }))[0]?.body_sha256 as string;

    const first = await extract({ url: env.play.url(host, '/p/1'), archive: true });
    const sha = await bodyOf(first.job_id);
    expect(sha).toMatch(/^[0-9a-f]{64}$/);
    // A re-extraction references the same body: deleting the extract leaves it.
    const re = await call('POST', `/api/v1/jobs/${first.job_id}/reextract`, { body: { llm_config: llm() } });
    await finished(re.body.job_id);
    expect((await call('DELETE', `/api/v1/jobs/${first.job_id}`)).status).toBe(200);
    expect(await pages.count({ job_id: first.job_id })).toBe(0);
    expect(await blobs.count({ sha256: sha })).toBe(1);
    // Now only it referenced the body: deleting it removes the body too.
    expect((await call('DELETE', `/api/v1/jobs/${re.body.job_id}`)).status).toBe(200);
    expect(await blobs.count({ sha256: sha })).toBe(0);

    // Retention: an expired extract page goes with its body; its result's page is a 404, a re-extraction a 409.
    const second = await extract({ url: env.play.url(host, '/p/2'), archive: true });
    const sha2 = await bodyOf(second.job_id);
    expect(await pages.updateMany({ job_id: second.job_id }, { $set: { expires_at: '2000-01-01T00:00:00.000Z' } })).toBe(1);
    await env.app.app.get(ArchiveRetentionService).sweepNow();
    expect(await pages.count({ job_id: second.job_id })).toBe(0);
    expect(await blobs.count({ sha256: sha2 })).toBe(0);
    const [item] = await results(second.job_id);
    expect((await call('GET', `/api/v1/jobs/${second.job_id}/results/${item.id}/page`)).status).toBe(404);
    const gone = await call('POST', `/api/v1/jobs/${second.job_id}/reextract`, { body: { llm_config: llm() } });
    expect(gone.status).toBe(409);
    expect(gone.body.detail).toMatch(/kept no page in the archive/);
  });

  it("keeps nothing by default; a saved site's crawl_options.archive applies to its extracts, the request's value over it", async () => {
    const host = freshHost();
    const pageStatus = async (jobId: string) => {
      const [item] = await results(jobId);
      return (await call('GET', `/api/v1/jobs/${jobId}/results/${item.id}/page`)).status;
    };
    const plain = await extract({ url: env.play.url(host, '/p/1') });
    expect(await pageStatus(plain.job_id)).toBe(404);
    const nothing = await call('POST', `/api/v1/jobs/${plain.job_id}/reextract`, { body: { llm_config: llm() } });
    expect(nothing.status).toBe(409);
    expect(nothing.body.detail).toMatch(/kept no page in the archive: it ran without `archive: true`/);

    const site = await call('POST', '/api/v1/sites', { body: { url: env.play.url(host, '/'), crawl_options: { archive: true } } });
    expect(site.status).toBe(201);
    const bySite = await extract({ site_id: site.body.id, url: env.play.url(host, '/p/2') });
    expect(await pageStatus(bySite.job_id)).toBe(200);
    const overridden = await extract({ site_id: site.body.id, url: env.play.url(host, '/p/3'), archive: false });
    expect(await pageStatus(overridden.job_id)).toBe(404);
    const bad = await call('POST', '/api/v1/extract', { body: { url: env.play.url(host, '/p/1'), schema: SCHEMA, archive: 'yes' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ location: 'body.archive' })]);
  });

  it('only: ungrounded and only: failed choose by how the extract ended; another tenant finds none of it', async () => {
    // A model that invents every second value: the product's price is not on the page (docs/provenance.md).
    const invented = await call('POST', '/api/v1/extract', {
      body: {
        url: env.play.url('shop.test', '/product/7'),
        schema: { name: 'string', price: 'string', sku: 'string' },
        archive: true,
        llm_config: { ...llm(), model: 'gpt-4o-mini+invent' },
      },
    });
    expect(invented.status).toBe(200);
    const jobId = invented.body.job_id as string;
    expect((await call('GET', `/api/v1/jobs/${jobId}`)).body.ungrounded_fields).toBeGreaterThan(0);
    const failed = await call('POST', `/api/v1/jobs/${jobId}/reextract`, { body: { only: 'failed', llm_config: llm() } });
    expect(failed.status).toBe(409);
    expect(failed.body.detail).toMatch(/no failed pages/);
    const started = await call('POST', `/api/v1/jobs/${jobId}/reextract`, { body: { only: 'ungrounded', llm_config: llm() } });
    expect(started.status).toBe(202);
    expect(await finished(started.body.job_id)).toMatchObject({ status: 'completed', page_count: 1, ungrounded_fields: 0 });

    const other = (await call('POST', '/api/v1/users', { body: { name: `archive-extract-other-${Date.now()}` } })).body.key.key as string;
    const [item] = await results(jobId);
    expect((await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${jobId}/results/${item.id}/page`, { key: other })).status).toBe(404);
    expect((await http(env.app.baseUrl, 'GET', `/api/v1/jobs/${jobId}/warc`, { key: other })).status).toBe(404);
    expect((await http(env.app.baseUrl, 'POST', `/api/v1/jobs/${jobId}/reextract`, { key: other, body: {} })).status).toBe(404);
    expect((await http(env.app.baseUrl, 'DELETE', `/api/v1/jobs/${jobId}`, { key: other })).status).toBe(404);
  });
}
