import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@app/auth';
import { loadConfig } from '@app/config';
import type { SecretSealer } from '@app/core';
import { LocalEventBus } from '@app/events';
import { createLogger, Metrics } from '@app/observability';
import { MemoryQueueAdapter } from '@app/queue';
import { SqliteDocumentStore, type CollectionSpec } from '@app/storage';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobLifecycleHooks } from './job-lifecycle-hooks';
import { jobChannel, TEST_JOB_TYPE, type JobRecord } from './job.types';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

const caller: Caller = { userId: 'u1', organizationId: 'u1', keyId: 'k', scopes: [], fullAccess: true, isAdmin: false };
const NO_SEAL: SecretSealer = { seal: (s) => s, open: (s) => s };

/**
 * A job's writes on a real (SQLite) store: each event's seq is drawn by the write that changes the job
 * (its insert, a transition, a counter update), not by a write of its own, and a waiter for the synchronous
 * answer reads the job when it finishes, not after each of its events.
 */
describe('JobsService: events drawn with the job’s own writes', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let bus: LocalEventBus;
  let queue: MemoryQueueAdapter;
  let repository: JobsRepository;
  let jobs: JobsService;
  /** Store calls, as `<method> <collection>`. */
  let calls: string[];

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-jobs-writes-'));
    const config = loadConfig({ DATA_DIR: dir });
    const logger = createLogger({ level: 'silent' });
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    calls = [];
    const open = store.collection.bind(store);
    jest.spyOn(store, 'collection').mockImplementation(async (spec: CollectionSpec) => {
      const collection = await open(spec);
      return new Proxy(collection, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            calls.push(`${String(property)} ${spec.name}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    });
    bus = new LocalEventBus();
    queue = new MemoryQueueAdapter();
    repository = new JobsRepository(store);
    await repository.onModuleInit();
    jobs = JobsService.of({
      repository,
      hooks: new JobLifecycleHooks(logger),
      deletion: new JobDeletionHooks(),
      queue,
      bus,
      config,
      metrics: new Metrics('test'),
      logger,
      sealer: NO_SEAL,
    });
  });

  afterEach(async () => {
    await queue.close();
    await bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newJob = async () => (await jobs.create(caller, { type: TEST_JOB_TYPE, url: null, input: { steps: 1, step_ms: 0 } })).id;
  const count = (call: string) => calls.filter((c) => c === call).length;

  it('a job’s life (create, start, usage, finish) stores its five events in order with one job write per change', async () => {
    const id = await newJob();
    await jobs.start(id);
    await jobs.recordUsage(id, { page_count: 1, cost_usd: 0.5 });
    await jobs.finish(id, 'completed');
    const events = await repository.eventsAfter(id, 0);
    expect(events.map((e) => [e.seq, e.event, e.data.status])).toEqual([
      [1, 'status', 'pending'],
      [2, 'status', 'running'],
      [3, 'status', 'running'],
      [4, 'status', 'completed'],
      [5, 'complete', 'completed'],
    ]);
    expect(events[2].data).toMatchObject({ page_count: 1, cost_usd: 0.5 });
    expect(events[4].dedupe_key).toBe('complete');
    // start, the usage update and finish: the five seqs came with them (and the insert), none on its own.
    expect(count('findOneAndUpdate jobs')).toBe(3);
    expect(count('insertOne job_events')).toBe(5);
    expect(count('findOne job_events')).toBe(0);
    expect((await repository.findForWorker(id))?.event_seq).toBe(5);
  });

  it('a run’s last counters are written with its completion: one write, announced in the completed status event', async () => {
    const id = await newJob();
    await jobs.start(id);
    const finished = await jobs.finish(id, 'completed', undefined, {
      usage: { page_count: 1, cost_usd: 0.25, token_usage_input: 7 },
      set: { extraction: { final_url: 'https://a.example/' } },
    });
    expect(finished).toMatchObject({ status: 'completed', page_count: 1, cost_usd: 0.25, token_usage_input: 7 });
    const events = await repository.eventsAfter(id, 0);
    expect(events.map((e) => [e.seq, e.event, e.data.status])).toEqual([
      [1, 'status', 'pending'],
      [2, 'status', 'running'],
      [3, 'status', 'completed'],
      [4, 'complete', 'completed'],
    ]);
    expect(events[2].data).toMatchObject({ page_count: 1, cost_usd: 0.25, token_usage_input: 7 });
    expect(events[3].data).toMatchObject({ page_count: 1, cost_usd: 0.25 });
    expect(count('findOneAndUpdate jobs')).toBe(2);
    expect(await repository.findForWorker(id)).toMatchObject({
      status: 'completed',
      page_count: 1,
      cost_usd: 0.25,
      extraction: { final_url: 'https://a.example/' },
      event_seq: 4,
    });
  });

  it('a job cancelled before its run could complete it still gets the run’s counters', async () => {
    const id = await newJob();
    await jobs.start(id);
    await jobs.stop(id, 'Cancelled by the caller.');
    const finished = await jobs.finish(id, 'completed', undefined, { usage: { page_count: 1, cost_usd: 0.5 } });
    expect(finished).toBeNull();
    expect(await repository.findForWorker(id)).toMatchObject({ status: 'cancelled', page_count: 1, cost_usd: 0.5 });
  });

  it('an event whose drawn seq another writer holds is stored under a new seq, never taken for stored', async () => {
    const id = await newJob();
    // What a store whose counter is not atomic under concurrency allows: seq 2 is held while the job's counter says 1.
    await store
      .collection({ name: 'job_events', indexes: [] })
      .then((events) =>
        events.insertOne({ _id: `${id}:${String(2).padStart(10, '0')}`, job_id: id, seq: 2, event: 'status', data: {}, dedupe_key: '#2' }),
      );
    await jobs.start(id);
    const events = await repository.eventsAfter(id, 0);
    expect(events.map((e) => [e.seq, e.data.status])).toEqual([
      [1, 'pending'],
      [2, undefined],
      [3, 'running'],
    ]);
  });

  describe('a crawl owner’s commit batch (publishPages)', () => {
    const page = (key: string, failed = false, firstTime = true) => ({
      result: { item: { url: key }, dedupeKey: `page:${key}` },
      ...(failed ? { error: { data: { url: key }, dedupeKey: `page-error:${key}` } } : {}),
      firstTime,
    });

    it('stores the pages’ events in order with one draw and one insert, and wakes the readers with the last', async () => {
      const id = await newJob();
      await jobs.start(id);
      const job = (await repository.findForWorker(id))!;
      const announced: unknown[] = [];
      let wake: (() => void) | undefined;
      await bus.subscribe(jobChannel(id), (message) => {
        announced.push(message);
        wake?.();
      });
      calls.length = 0;
      await jobs.publishPages(job, [page('a'), page('b', true), page('c')]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(calls).toEqual(['findOneAndUpdate jobs', 'insertMany job_events']); // every page firstTime: no lookup
      const events = (await repository.eventsAfter(id, 2)).map((e) => [e.seq, e.event, e.dedupe_key]);
      expect(events).toEqual([
        [3, 'result', 'page:a'],
        [4, 'result', 'page:b'],
        [5, 'error', 'page-error:b'],
        [6, 'result', 'page:c'],
      ]);
      // Announcements are coalesced per job (job-announcer.ts): the readers are woken with the last seq, and
      // read the stored log from theirs, so none of the four is lost; nothing announces a seq twice.
      while (!announced.some((m) => (m as { seq: number }).seq === 6)) await new Promise<void>((resolve) => (wake = resolve));
      const seqs = announced.map((m) => (m as { seq: number }).seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(announced.at(-1)).toEqual({ seq: 6, event: 'result' });
    });

    it('a page announced before (a redo after a crash) is not stored again and leaves no gap', async () => {
      const id = await newJob();
      await jobs.start(id);
      const job = (await repository.findForWorker(id))!;
      await jobs.publishPages(job, [page('a')]);
      await jobs.publishPages(job, [page('a', false, false), page('b', false, false)]);
      const events = (await repository.eventsAfter(id, 2)).map((e) => [e.seq, e.dedupe_key]);
      expect(events).toEqual([
        [3, 'page:a'],
        [4, 'page:b'],
      ]);
    });

    it('stores nothing once the job is not running', async () => {
      const id = await newJob();
      await jobs.start(id);
      await jobs.stop(id, 'Cancelled by the caller.');
      const job = (await repository.findForWorker(id))!;
      await jobs.publishPages(job, [page('a'), page('b', true)]);
      expect((await repository.eventsAfter(id, 0)).filter((e) => e.event === 'result' || e.event === 'error')).toEqual([]);
    });

    it('seqs another writer holds are drawn anew, never two events under one seq (a stale post-image of the draw)', async () => {
      const id = await newJob();
      await jobs.start(id);
      const job = (await repository.findForWorker(id))!;
      // What a store that hands one post-image to two concurrent updates allows: seqs 3 and 4 already hold events
      // of other writers while the job's counter still says 2 (their draws' post-images were stale).
      const raw = await store.collection({ name: 'job_events', indexes: [] });
      for (const seq of [3, 4])
        await raw.insertOne({
          _id: `${id}:${String(seq).padStart(10, '0')}`,
          job_id: id,
          seq,
          event: 'status',
          data: {},
          dedupe_key: `#${seq}`,
        });
      await jobs.publishPages(job, [page('a'), page('b'), page('c')]);
      const events = await repository.eventsAfter(id, 0);
      const seqs = events.map((e) => e.seq);
      expect(new Set(seqs).size).toBe(seqs.length);
      expect(
        events
          .filter((e) => e.event === 'result')
          .map((e) => e.dedupe_key)
          .sort(),
      ).toEqual(['page:a', 'page:b', 'page:c']);
    });
  });

  it('finish stores `complete` once when it is stored already (a redelivery announced it first)', async () => {
    const id = await newJob();
    await jobs.start(id);
    await repository.appendEvent(id, 'complete', { status: 'completed' }, { dedupeKey: 'complete' });
    const announced: unknown[] = [];
    await bus.subscribe(jobChannel(id), (message) => announced.push(message));
    await jobs.finish(id, 'completed');
    await new Promise((resolve) => setImmediate(resolve));
    const events = await repository.eventsAfter(id, 0);
    expect(events.filter((e) => e.event === 'complete')).toHaveLength(1);
    expect(events.filter((e) => e.event === 'status').map((e) => e.data.status)).toEqual(['pending', 'running', 'completed']);
    // Only the new status event went out, marked as the one that finishes the job. (The start's own status
    // event, seq 2, may be heard here too: announcements are coalesced, so it can go out late, job-announcer.ts.)
    expect(announced.filter((m) => (m as { seq: number }).seq > 2)).toEqual([{ seq: 4, event: 'status', terminal: true }]);
  });

  it('a waiter for the synchronous answer reads the job when it starts waiting and when the job finishes, not after each event', async () => {
    const id = await newJob();
    await jobs.start(id);
    const read = repository.findForWorker.bind(repository);
    let firstRead!: () => void;
    const readOnce = new Promise<void>((resolve) => (firstRead = resolve));
    const reads = jest.spyOn(repository, 'findForWorker').mockImplementation(async (jobId: string) => {
      const job = await read(jobId);
      firstRead();
      return job;
    });
    const waiting = jobs.waitForTerminal(id, 60_000);
    await readOnce;
    // A probe subscribed after the waiter hears each message right after it (one channel, publish order).
    // Announcements are coalesced (job-announcer.ts): the probe waits for the one that carries the last seq.
    let heardSeq = 0;
    let wake: (() => void) | undefined;
    await bus.subscribe(jobChannel(id), (message) => {
      heardSeq = Math.max(heardSeq, (message as { seq: number }).seq);
      wake?.();
    });
    await jobs.recordUsage(id, { page_count: 1 });
    await jobs.recordUsage(id, { token_usage_input: 10 });
    const last = (await read(id))!.event_seq;
    while (heardSeq < last) await new Promise<void>((resolve) => (wake = resolve));
    // Anything the waiter would do on being woken runs before the next turn of the event loop.
    await new Promise((resolve) => setImmediate(resolve));
    expect(reads).toHaveBeenCalledTimes(1);
    await jobs.finish(id, 'completed');
    const done = (await waiting) as JobRecord;
    expect(done.status).toBe('completed');
    expect(done.page_count).toBe(1);
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('a waiter is woken by a message of a process that does not say what happened (an earlier version)', async () => {
    const id = await newJob();
    await jobs.start(id);
    const read = repository.findForWorker.bind(repository);
    let firstRead!: () => void;
    const readOnce = new Promise<void>((resolve) => (firstRead = resolve));
    const reads = jest.spyOn(repository, 'findForWorker').mockImplementation(async (jobId: string) => {
      const job = await read(jobId);
      firstRead();
      return job;
    });
    const waiting = jobs.waitForTerminal(id, 60_000);
    await readOnce;
    // The job finishes without a message of this version (as an older crawler would): the bare `{ seq }` wakes the waiter.
    await repository.transition(id, 'completed', { completed_at: new Date().toISOString() });
    const heard = new Promise<void>((resolve) => void bus.subscribe(jobChannel(id), () => resolve()));
    await bus.publish(jobChannel(id), { seq: 99 });
    await heard;
    await new Promise((resolve) => setImmediate(resolve));
    // Read on the message itself (the slow poll reads a second after the first read).
    expect(reads).toHaveBeenCalledTimes(2);
    expect((await waiting)?.status).toBe('completed');
  });
});
