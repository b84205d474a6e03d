/**
 * A crawl owner's surroundings for the fast specs of its parts (libs/crawl/src/owner/*.spec.ts): the
 * embedded store (SQLite in a temporary directory) with the real crawl and jobs repositories, a running
 * crawl job, and a CrawlRun that holds the crawl's lease at epoch 1. No app, no queue, no network.
 */
import { StoreDeliveryLedger } from '@app/queue';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId, nowIso } from '@app/core';
import { JobsRepository, NOT_STARTED, type JobRecord } from '@app/jobs';
import { createLogger } from '@app/observability';
import { SqliteDocumentStore } from '@app/storage';
import { resolveCrawlOptions, type CrawlOptions } from '@app/sites';
import type { CrawlJobInput } from '../../libs/crawl/src/crawl-input';
import { CrawlRepository } from '../../libs/crawl/src/crawl.repository';
import type { CrawlEntry } from '../../libs/crawl/src/crawl.types';
import { newEntry, toWindowEntry } from '../../libs/crawl/src/owner/crawl-entry';
import { CrawlRun } from '../../libs/crawl/src/owner/crawl-run';
import type { WindowEntry } from '../../libs/crawl/src/owner/frontier-window';
import { canonicalize, type CanonicalUrl } from '../../libs/crawl/src/url-canon';

export const WORKER = 'worker-spec';
export const LEASE_MS = 10_000;

export const DEFAULT_OPTIONS: CrawlOptions = resolveCrawlOptions({ max_depth: 3, max_pages: 100, fetch_mode: 'static', archive: false });

export interface OwnerFixture {
  store: SqliteDocumentStore;
  repository: CrawlRepository;
  jobs: JobsRepository;
  run: CrawlRun;
  abort: AbortController;
  /** Halts the run received (in order). */
  halts: string[];
  /** Times the run's pool was woken. */
  wakes: () => number;
  /** A stored pending entry for `path` on the seed's host (or `url`), and its window view. */
  pending(urlOrPath: string, extra?: Partial<CrawlEntry>): Promise<WindowEntry>;
  /** Another worker takes the crawl over (epoch + 1): this run's writes are stale from now on. */
  takeOver(): Promise<void>;
  close(): Promise<void>;
}

let seq = 0;

export async function ownerFixture(
  options: Partial<CrawlOptions> = {},
  seedUrl = 'http://shop.test/',
  extra: Partial<CrawlJobInput> = {},
): Promise<OwnerFixture> {
  const dir = mkdtempSync(join(tmpdir(), 'gleaner-owner-'));
  const store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
  const repository = new CrawlRepository(store, await StoreDeliveryLedger.open(store));
  await repository.onModuleInit();
  const jobs = new JobsRepository(store);
  await jobs.onModuleInit();
  const seed = canonicalize(seedUrl)!;
  const input: CrawlJobInput = {
    url: seed.url,
    schema: { type: 'object', properties: { title: { type: 'string' } } },
    page_formats: null,
    schema_id: null,
    site_id: null,
    llm_config: null,
    options: { ...DEFAULT_OPTIONS, ...options },
    extraction_mode: 'model',
    ...extra,
  };
  const job = crawlJob(input);
  await jobs.insert(job);
  await repository.states.ensureState(job._id, job.user_id);
  const abort = new AbortController();
  const run = new CrawlRun(input, seed, job, createLogger({ level: 'silent' }), abort.signal);
  const halts: string[] = [];
  run.onHalt((stop) => halts.push(stop.why));
  let wakes = 0;
  run.attachWaker(() => wakes++);
  const before = await repository.states.acquire(job._id, WORKER, LEASE_MS);
  run.epoch = before!.epoch + 1;

  return {
    store,
    repository,
    jobs,
    run,
    abort,
    halts,
    wakes: () => wakes,
    async pending(urlOrPath, extra = {}) {
      const target = canonicalize(urlOrPath, seed.url) as CanonicalUrl;
      const entry = newEntry(
        { jobId: job._id, userId: job.user_id },
        target,
        { depth: 1, parentUrl: seed.url, via: 'link', seq: ++seq, now: nowIso() },
        extra,
      );
      await repository.entries.insertEntries([entry]);
      return toWindowEntry(entry);
    },
    async takeOver() {
      await repository.states.acquire(job._id, 'worker-other', LEASE_MS, Date.now() + 2 * LEASE_MS);
    },
    async close() {
      abort.abort();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function crawlJob(input: CrawlJobInput): JobRecord {
  const now = nowIso();
  return {
    _id: `job_${newId()}`,
    user_id: 'user_spec',
    organization_id: 'org_spec',
    type: input.source ? 'batch' : 'crawl',
    status: 'running',
    url: input.url,
    capture_debug: false,
    created_at: now,
    ...NOT_STARTED,
    started_at: now,
    event_seq: 0,
    holds_slot: true,
    request_id: null,
    input: { ...input },
  };
}
