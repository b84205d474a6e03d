import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@app/auth';
import { loadConfig } from '@app/config';
import { Errors } from '@app/core';
import { JobsRepository, type JobRecord, type JobsService } from '@app/jobs';
import type { AppLogger } from '@app/observability';
import { SqliteDocumentStore } from '@app/storage';
import { parse as parseYaml } from 'yaml';
import type { ResultRecord } from './result.types';
import { EXPORT_BATCH_SIZE, ResultsRepository } from './results.repository';
import { ResultsService } from './results.service';

const caller = (userId: string) => ({ userId, keyId: `key-${userId}`, scopes: [], fullAccess: true, isAdmin: false }) as unknown as Caller;

/**
 * GET /jobs/{id}/results on a real (SQLite) store: a job with results is answered from the results query
 * alone (owner-scoped, each record naming its job type); the job is read only to tell an unknown job
 * (404) from one without results, for records stored before `job_type`, and before a 406.
 */
describe('ResultsService.exportResults', () => {
  let store: SqliteDocumentStore;
  let jobsRepository: JobsRepository;
  let service: ResultsService;
  let jobReads: string[];

  const job = (id: string, userId: string, type: string, extra: Partial<JobRecord> = {}) =>
    ({
      _id: id,
      user_id: userId,
      type,
      status: 'completed',
      capture_debug: false,
      created_at: '2026-01-01T00:00:00Z',
      ...extra,
    }) as unknown as JobRecord;
  const page = (url: string) => ({ url, status: 'completed' as const, data: { name: url } });

  async function body(userId: string, jobId: string, options: { format?: string; accept?: string; merge?: boolean } = {}) {
    const stream = await service.exportResults(caller(userId), jobId, options);
    let text = '';
    for await (const chunk of stream.chunks) text += chunk;
    return { stream, text };
  }
  const items = async (userId: string, jobId: string) => JSON.parse((await body(userId, jobId)).text) as Array<Record<string, unknown>>;

  beforeEach(async () => {
    store = SqliteDocumentStore.open({ file: ':memory:' });
    const repository = new ResultsRepository(store);
    await repository.onModuleInit();
    jobsRepository = new JobsRepository(store);
    await jobsRepository.onModuleInit();
    jobReads = [];
    // JobsService.getRecord as it is: the owner's job, else a 404 (recorded, to count the reads).
    const jobs = {
      getRecord: async (c: Caller, jobId: string) => {
        jobReads.push(jobId);
        const found = await jobsRepository.findOwn({ userId: c.userId }, jobId);
        if (!found) throw Errors.notFound('Job');
        return found;
      },
    } as unknown as JobsService;
    const config = loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'gleaner-results-')) });
    service = ResultsService.of({ repository, jobs, jobsRepository, config, logger: {} as AppLogger });
  });
  afterEach(() => store.close());

  it('answers a job with results without reading the job, the item metadata from the record’s job type', async () => {
    const analyze = job('job-a', 'user-1', 'analyze');
    await jobsRepository.insert(analyze);
    const stored = await service.storePage(analyze, 'p', page('https://a.example/'));
    const found = await body('user-1', 'job-a');
    expect(JSON.parse(found.text)).toEqual([
      {
        id: stored.id,
        url: 'https://a.example/',
        status: 'completed',
        data: { name: 'https://a.example/' },
        metadata: { method: 'analysis' },
        warnings: [],
      },
    ]);
    expect(found.stream).toMatchObject({ contentType: 'application/json', filename: 'job-a.json' });
    // All of it in one store batch: the body at once (one write), the very text the stream would give.
    expect(typeof found.stream.chunks).toBe('string');
    expect(found.text).toBe(`[${JSON.stringify(JSON.parse(found.text)[0])}]\n`);
    expect(jobReads).toEqual([]);
  });

  it('streams every record of a job in order (more than one store batch)', async () => {
    const crawl = job('job-c', 'user-1', 'crawl');
    await jobsRepository.insert(crawl);
    for (let i = 0; i < 450; i++) await service.storePage(crawl, `k${i}`, page(`https://a.example/${i}`));
    const list = await items('user-1', 'job-c');
    expect(list.map((item) => item.url)).toEqual(Array.from({ length: 450 }, (_, i) => `https://a.example/${i}`));
    expect(typeof (await service.exportResults(caller('user-1'), 'job-c', {})).chunks).not.toBe('string');
    expect(jobReads).toEqual([]);
  });

  it('streams a job of exactly one full batch, and answers one batch less one at once, in every format', async () => {
    const crawl = job('job-b', 'user-1', 'crawl');
    await jobsRepository.insert(crawl);
    for (let i = 0; i < EXPORT_BATCH_SIZE - 1; i++) await service.storePage(crawl, `k${i}`, page(`https://a.example/${i}`));
    const streamed = async (format: string) => {
      const all = await body('user-1', 'job-b', { format });
      return { whole: typeof all.stream.chunks === 'string', text: all.text };
    };
    const before = { json: await streamed('json'), jsonl: await streamed('jsonl'), yaml: await streamed('yaml') };
    expect([before.json.whole, before.jsonl.whole, before.yaml.whole]).toEqual([true, true, true]);
    expect(JSON.parse(before.json.text)).toHaveLength(EXPORT_BATCH_SIZE - 1);
    expect(parseYaml(before.yaml.text)).toEqual(JSON.parse(before.json.text));
    expect(
      before.jsonl.text
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(JSON.parse(before.json.text));
    await service.storePage(crawl, 'last', page('https://a.example/last'));
    const full = await streamed('json');
    expect(full.whole).toBe(false);
    expect((JSON.parse(full.text) as Array<{ url: string }>).map((item) => item.url).slice(-2)).toEqual([
      `https://a.example/${EXPORT_BATCH_SIZE - 2}`,
      'https://a.example/last',
    ]);
  });

  it('send writes a body held in memory with its length and the export headers', async () => {
    const server = createServer((_request, response) => {
      void service.send(response, { contentType: 'application/json', filename: 'x.json', chunks: '[1]\n' }, { vary: 'Accept' });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await response.text()).toBe('[1]\n');
      expect(Object.fromEntries(response.headers)).toMatchObject({
        'content-type': 'application/json; charset=utf-8',
        'cache-control': 'private, no-store',
        'content-length': '4',
        vary: 'Accept',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('reads the job for a job without results: [] for one’s own, 404 for an unknown or another user’s job', async () => {
    await jobsRepository.insert(job('job-empty', 'user-1', 'extract'));
    expect(await items('user-1', 'job-empty')).toEqual([]);
    expect(jobReads).toEqual(['job-empty']);
    await expect(body('user-1', 'job-none')).rejects.toMatchObject({ slug: 'not-found' });
    await expect(body('user-2', 'job-empty')).rejects.toMatchObject({ slug: 'not-found' });
  });

  it('keeps tenants apart: another user’s job with results is a 404', async () => {
    const theirs = job('job-t', 'user-1', 'extract');
    await jobsRepository.insert(theirs);
    await service.storePage(theirs, 'p', page('https://a.example/'));
    await expect(body('user-2', 'job-t')).rejects.toMatchObject({ slug: 'not-found' });
  });

  it('answers 404 before 406: a bad format on an unknown job is a 404, on one’s own job a 406', async () => {
    const own = job('job-f', 'user-1', 'extract');
    await jobsRepository.insert(own);
    await service.storePage(own, 'p', page('https://a.example/'));
    await expect(body('user-1', 'job-none', { format: 'xml' })).rejects.toMatchObject({ slug: 'not-found' });
    await expect(body('user-1', 'job-f', { format: 'xml' })).rejects.toMatchObject({ slug: 'not-acceptable' });
    await expect(body('user-1', 'job-f', { accept: 'text/html' })).rejects.toMatchObject({ slug: 'not-acceptable' });
  });

  it('reads the job for records stored before job_type: their metadata by its type, and a deleted job is a 404', async () => {
    await jobsRepository.insert(job('job-old', 'user-1', 'analyze'));
    const old = {
      _id: 'job-old:0000000001',
      id: 'r-old',
      job_id: 'job-old',
      user_id: 'user-1',
      seq: 1,
      url: 'https://a.example/',
      status: 'completed',
      data: { a: 1 },
    } as unknown as ResultRecord;
    await store.collection<ResultRecord>({ name: 'job_results', indexes: [] }).then((c) => c.insertOne(old));
    expect(await items('user-1', 'job-old')).toEqual([
      { id: 'r-old', url: 'https://a.example/', status: 'completed', data: { a: 1 }, metadata: { method: 'analysis' }, warnings: [] },
    ]);
    expect(jobReads).toEqual(['job-old']);
    await jobsRepository.markDeleted('job-old');
    await expect(body('user-1', 'job-old')).rejects.toMatchObject({ slug: 'not-found' });
  });

  it('reads the job type once for older records after newer ones (a job that spans an upgrade)', async () => {
    const analyze = job('job-m', 'user-1', 'analyze');
    await jobsRepository.insert(analyze);
    await service.storePage(analyze, 'p', page('https://a.example/1'));
    const results = await store.collection<ResultRecord>({ name: 'job_results', indexes: [] });
    for (const seq of [2, 3]) {
      await results.insertOne({
        _id: `job-m:${seq}`,
        id: `r-${seq}`,
        job_id: 'job-m',
        user_id: 'user-1',
        seq,
        url: `https://a.example/${seq}`,
        status: 'completed',
        data: null,
      } as unknown as ResultRecord);
    }
    const list = await items('user-1', 'job-m');
    expect(list.map((item) => item.metadata)).toEqual([{ method: 'analysis' }, { method: 'analysis' }, { method: 'analysis' }]);
    expect(jobReads).toEqual([]);
  });

  it('merge=true still reads the job first (404 for an unknown one)', async () => {
    const extract = job('job-g', 'user-1', 'extract');
    await jobsRepository.insert(extract);
    await service.storePage(extract, 'p', page('https://a.example/'));
    expect(JSON.parse((await body('user-1', 'job-g', { merge: true })).text)).toEqual([{ name: 'https://a.example/' }]);
    await expect(body('user-1', 'job-none', { merge: true })).rejects.toMatchObject({ slug: 'not-found' });
  });
});
