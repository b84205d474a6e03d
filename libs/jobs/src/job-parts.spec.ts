import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@app/auth';
import { loadConfig } from '@app/config';
import type { SecretSealer } from '@app/core';
import { LocalEventBus } from '@app/events';
import { createLogger, Metrics } from '@app/observability';
import { MemoryQueueAdapter } from '@app/queue';
import { SqliteDocumentStore } from '@app/storage';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobLifecycleHooks, type JobLifecycleEvent } from './job-lifecycle-hooks';
import { jobChannel, TEST_JOB_TYPE, type JobRecord } from './job.types';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';

/** The in-process bus delivers in setImmediate order: one turn later, everything published before was delivered. */
const delivered = () => new Promise<void>((resolve) => setImmediate(resolve));
const caller: Caller = { userId: 'u1', organizationId: 'u1', keyId: 'k', scopes: [], fullAccess: true, isAdmin: false };
/** A sealer that shows it was used: sealed text is reversed. */
const REVERSING: SecretSealer = { seal: (s) => [...s].reverse().join(''), open: (s) => [...s].reverse().join('') };

/** JobsService's parts (JobEventLog, JobSlots, JobMessages), each on a real SQLite store and the in-process queue. */
describe('JobsService parts', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let bus: LocalEventBus;
  let queue: MemoryQueueAdapter;
  let repository: JobsRepository;
  let hooks: JobLifecycleHooks;
  let jobs: JobsService;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-job-parts-'));
    const config = loadConfig({ DATA_DIR: dir, GLEANER_MAX_RUNNING_JOBS_PER_USER: '1', GLEANER_PUBLIC_URL: 'https://g.test' });
    const logger = createLogger({ level: 'silent' });
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    bus = new LocalEventBus();
    queue = new MemoryQueueAdapter();
    repository = new JobsRepository(store);
    await repository.onModuleInit();
    hooks = new JobLifecycleHooks(logger);
    const deletion = new JobDeletionHooks();
    jobs = JobsService.of({ repository, hooks, deletion, queue, bus, config, metrics: new Metrics('test'), logger, sealer: REVERSING });
  });

  afterEach(async () => {
    await queue.close();
    await bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const newJob = async (secrets?: Record<string, string>): Promise<JobRecord> => {
    const view = await jobs.create(caller, { type: TEST_JOB_TYPE, url: null, input: {}, secrets });
    return (await repository.findForWorker(view.id))!;
  };

  describe('JobEventLog', () => {
    it('emit stores an event under the next seq and announces it on the job channel; a dedupe key stores it once', async () => {
      const job = await newJob();
      const heard: unknown[] = [];
      let wake: (() => void) | undefined;
      await delivered(); // the bus delivers on a later turn: the create's own announcement goes first
      await bus.subscribe(jobChannel(job._id), (message) => {
        heard.push(message);
        wake?.();
      });
      expect(await jobs.events.emit(job._id, 'status', { a: 1 }, { dedupeKey: 'k' })).toBe(true);
      expect(await jobs.events.emit(job._id, 'status', { a: 2 }, { dedupeKey: 'k' })).toBe(false);
      // Within 100 ms of the create's announcement this one is coalesced (job-announcer.ts): it comes later.
      while (heard.length === 0) await new Promise<void>((resolve) => (wake = resolve));
      await delivered();
      expect(heard).toEqual([{ seq: 2, event: 'status' }]);
    });

    it('publishResult tells the lifecycle listeners (webhooks) of the page once, with its dedupe key', async () => {
      const job = await newJob();
      await jobs.start(job._id);
      const told: JobLifecycleEvent[] = [];
      hooks.register(async (event) => void told.push(event));
      const running = (await repository.findForWorker(job._id))!;
      expect(await jobs.events.publishResult(running, { url: 'u' }, { dedupeKey: 'page:u' })).toBe(true);
      expect(await jobs.events.publishResult(running, { url: 'u' }, { dedupeKey: 'page:u' })).toBe(false);
      // The second call re-announces (its listeners store one event per dedupe key): a run that died between the two.
      expect(told.map((e) => [e.type, e.dedupeKey])).toEqual([
        ['job.page', 'page:u'],
        ['job.page', 'page:u'],
      ]);
    });

    it('the status and complete events carry the job’s counters and its results URL', async () => {
      const job = await newJob();
      expect(jobs.events.statusData(job)).toMatchObject({ job_id: job._id, status: 'pending', page_count: 0, cost_usd: 0 });
      expect(jobs.events.completeData(job)).toMatchObject({ results_url: `https://g.test/api/v1/jobs/${job._id}/results` });
    });
  });

  describe('JobSlots', () => {
    it('holds a user to the running cap of a job class; a released slot can be taken again', async () => {
      expect(await jobs.slots.acquireSlot('u1', 'single')).toBe(true);
      expect(await jobs.slots.acquireSlot('u1', 'single')).toBe(false);
      expect(await jobs.slots.acquireSlot('u2', 'single')).toBe(true);
      await jobs.slots.releaseSlot('u1', 'single');
      expect(await jobs.slots.acquireSlot('u1', 'single')).toBe(true);
    });

    it('a parked job is woken oldest first with a fresh queue message', async () => {
      const first = await newJob();
      const second = await newJob();
      await jobs.slots.park(first._id);
      await jobs.slots.park(second._id);
      const before = (await queue.counts('jobs')).waiting;
      expect(await jobs.slots.wakeParked('u1', 1)).toBe(1);
      expect((await queue.counts('jobs')).waiting).toBe(before + 1);
      expect((await repository.findForWorker(first._id))!.parked).toBeUndefined();
      expect((await repository.findForWorker(second._id))!.parked).toBe(true);
    });
  });

  describe('JobMessages', () => {
    it('seals a request’s secrets for its message and opens them; nothing or garbage opens to none', () => {
      const sealed = jobs.messages.sealSecrets({ api_key: 'sk-1' })!;
      expect(sealed).not.toContain('sk-1');
      expect(jobs.messages.openSecrets(sealed)).toEqual({ api_key: 'sk-1' });
      expect(jobs.messages.sealSecrets({})).toBeUndefined();
      expect(jobs.messages.openSecrets(undefined)).toEqual({});
      expect(jobs.messages.openSecrets('not json')).toEqual({});
    });

    it('resends the message of an unfinished job under the job’s own id, which the queue holds once', async () => {
      await newJob();
      const waiting = (await queue.counts('jobs')).waiting;
      expect(await jobs.messages.resendUnfinished(-60_000)).toBe(1);
      expect((await queue.counts('jobs')).waiting).toBe(waiting);
    });
  });
});
