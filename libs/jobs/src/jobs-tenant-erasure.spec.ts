import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Caller } from '@app/auth';
import { loadConfig } from '@app/config';
import { TenantErasers, type SecretSealer } from '@app/core';
import { LocalEventBus } from '@app/events';
import { createLogger, Metrics } from '@app/observability';
import { MemoryQueueAdapter } from '@app/queue';
import { SqliteDocumentStore } from '@app/storage';
import { IdempotencyService } from './idempotency.service';
import { JobDeletionHooks } from './job-deletion-hooks';
import { JobLifecycleHooks } from './job-lifecycle-hooks';
import { jobControlChannel, TEST_JOB_TYPE } from './job.types';
import { JobsRepository } from './jobs.repository';
import { JobsService } from './jobs.service';
import { JobsTenantErasure, TENANT_CANCEL_MESSAGE } from './jobs-tenant-erasure';

const caller = (userId: string): Caller => ({ userId, organizationId: userId, keyId: 'k', scopes: [], fullAccess: true, isAdmin: false });
const NO_SEAL: SecretSealer = { seal: (s) => s, open: (s) => s };

describe('JobsTenantErasure (a tenant deletion: its jobs cancelled, then erased with what the libs keep of them)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let bus: LocalEventBus;
  let queue: MemoryQueueAdapter;
  let repository: JobsRepository;
  let jobs: JobsService;
  let deletion: JobDeletionHooks;
  let lifecycle: JobLifecycleHooks;
  let idempotency: IdempotencyService;
  let erasure: JobsTenantErasure;
  let erasers: TenantErasers;

  const job = async (userId: string, status: 'pending' | 'running' | 'completed') => {
    const view = await jobs.create(caller(userId), { type: TEST_JOB_TYPE, url: null, input: { steps: 1, step_ms: 0 } });
    if (status !== 'pending') await jobs.start(view.id);
    if (status === 'completed') await jobs.finish(view.id, 'completed');
    return view.id;
  };

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-jobs-erasure-'));
    const config = loadConfig({ DATA_DIR: dir });
    const logger = createLogger({ level: 'silent' });
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    bus = new LocalEventBus();
    queue = new MemoryQueueAdapter();
    repository = new JobsRepository(store);
    await repository.onModuleInit();
    lifecycle = new JobLifecycleHooks(logger);
    deletion = new JobDeletionHooks();
    jobs = JobsService.of({
      repository,
      hooks: lifecycle,
      deletion,
      queue,
      bus,
      config,
      metrics: new Metrics('test'),
      logger,
      sealer: NO_SEAL,
    });
    idempotency = new IdempotencyService(store);
    await idempotency.onModuleInit();
    erasers = new TenantErasers();
    erasure = new JobsTenantErasure(erasers, repository, jobs, deletion, idempotency);
    erasure.onModuleInit();
  });

  afterEach(async () => {
    await queue.close();
    await bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('registers the cancel in the jobs phase and the erasure in the data phase', () => {
    expect(erasers.inOrder().map((e) => [e.phase, e.name])).toEqual([
      ['jobs', 'running_jobs'],
      ['data', 'jobs'],
      ['data', 'idempotency_records'],
    ]);
  });

  it('cancels every pending and running job of the tenant as POST /cancel does, and tells the process running each', async () => {
    const running = await job('u1', 'running');
    const pending = await job('u1', 'pending');
    const done = await job('u1', 'completed');
    const others = await job('u2', 'running');
    const told = new Promise<unknown>((resolve) => void bus.subscribe(jobControlChannel(running), resolve));

    expect(await erasure.cancelAll('u1')).toBe(2);
    expect(await told).toEqual({ type: 'cancel' });
    for (const id of [running, pending])
      expect(await repository.findForWorker(id)).toMatchObject({
        status: 'cancelled',
        error_category: 'cancelled',
        error_message: TENANT_CANCEL_MESSAGE,
      });
    expect(await repository.findForWorker(done)).toMatchObject({ status: 'completed' });
    expect(await repository.findForWorker(others)).toMatchObject({ status: 'running' });
    expect(await erasure.cancelAll('u1')).toBe(0); // run again: nothing left to cancel
  });

  it('erases every job of the tenant, deleted ones too, each through the deletion hooks first; then its slots and idempotency records', async () => {
    const done = await job('u1', 'completed');
    const deleted = await job('u1', 'completed');
    await jobs.delete(caller('u1'), deleted);
    const others = await job('u2', 'completed');
    // Started after the cancel phase (a monitor run being launched): cancelled before it goes.
    const late = await job('u1', 'running');
    const hooked: string[] = [];
    deletion.register(async (record) => {
      hooked.push(record._id);
      // A hook runs while the job is still there (it may read it), and never for a running one.
      expect(await repository.findForWorker(record._id)).toMatchObject({ status: expect.stringMatching(/completed|cancelled/) });
    });
    const cancelled: string[] = [];
    lifecycle.register(async (event) => void (event.type === 'job.cancelled' && cancelled.push(event.job._id)));
    await idempotency.begin('u1', 'key-1', 'fp');
    await idempotency.begin('u2', 'key-1', 'fp');
    await jobs.acquireSlot('u1', 'single');
    await jobs.acquireSlot('u1', 'crawl');
    await jobs.acquireSlot('u2', 'crawl');
    const slots = await store.collection({ name: 'user_slots', indexes: [] });
    expect((await slots.find({})).map((s) => s._id).sort()).toEqual(['u1', 'u1:crawl', 'u2:crawl']);

    expect(await erasure.eraseAll('u1')).toBe(3);
    expect(hooked.sort()).toEqual([done, deleted, late].sort());
    expect(cancelled).toEqual([late]);
    for (const id of [done, deleted, late]) {
      expect(await repository.findForWorker(id)).toBeNull();
      expect(await repository.eventsAfter(id, 0)).toEqual([]);
    }
    expect((await slots.find({})).map((s) => s._id)).toEqual(['u2:crawl']);
    // The idempotency records go with their own eraser: u1's key is free again, u2's still in use.
    expect(await erasers.inOrder()[2].run('u1')).toBe(1);
    expect((await idempotency.begin('u1', 'key-1', 'fp')).kind).toBe('run');
    await expect(idempotency.begin('u2', 'key-1', 'fp')).rejects.toMatchObject({ slug: 'idempotency-key-in-use' });

    // The other tenant is untouched.
    expect(await repository.findForWorker(others)).toMatchObject({ status: 'completed' });
    expect((await repository.eventsAfter(others, 0)).length).toBeGreaterThan(0);
    expect(await erasure.eraseAll('u1')).toBe(0); // run again: nothing left
  });
});
