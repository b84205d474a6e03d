import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig } from '@app/config';
import { AppError, TenantErasers, type TenantErasurePhase } from '@app/core';
import { LocalEventBus } from '@app/events';
import { createLogger, Metrics } from '@app/observability';
import { SqliteDocumentStore } from '@app/storage';
import { AuthRepository } from './auth.repository';
import { AUTH_REVOKED_CHANNEL, AuthService } from './auth.service';
import type { Caller } from './caller';
import { KeysService } from './keys.service';
import { TenantDeletionMetrics } from './tenant-deletion-metrics';
import { TenantDeletionResumer } from './tenant-deletion-resumer';
import { TenantDeletionService } from './tenant-deletion.service';
import { UsersService } from './users.service';

class Lines extends Writable {
  readonly lines: Array<Record<string, unknown>> = [];
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) this.lines.push(JSON.parse(line) as Record<string, unknown>);
    callback();
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('TenantDeletionService (the orchestration of DELETE /users/{id})', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let bus: LocalEventBus;
  let repository: AuthRepository;
  let auth: AuthService;
  let users: UsersService;
  let erasers: TenantErasers;
  let metrics: Metrics;
  let log: Lines;
  let deletion: TenantDeletionService;
  let admin: Caller;
  /** What the erasers did, in order: `<name>:<user>`. */
  let calls: string[];

  const register = (name: string, phase: TenantErasurePhase, run: (userId: string) => Promise<number> = async () => 1) =>
    erasers.register({
      name,
      phase,
      run: async (userId) => {
        calls.push(`${name}:${userId}`);
        return run(userId);
      },
    });
  const authenticates = async (secret: string) =>
    auth.authenticate(`Bearer ${secret}`).then(
      () => true,
      () => false,
    );
  const slug = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: AppError) => error.slug,
    );
  const metric = async (name: string) => (await metrics.render()).split('\n').filter((line) => line.startsWith(name));

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-tenant-deletion-'));
    // A key cache longer than the test: a refused key can only come from the deletion, not from expiry.
    const config = loadConfig({ DATA_DIR: dir, GLEANER_AUTH_CACHE_MS: '60000' });
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    bus = new LocalEventBus();
    metrics = new Metrics('test');
    log = new Lines();
    const logger = createLogger({ level: 'info', destination: log });
    repository = new AuthRepository(store);
    await repository.onModuleInit();
    auth = new AuthService(repository, bus, config, metrics);
    await auth.onModuleInit();
    users = new UsersService(repository, new KeysService(repository, auth), config, logger);
    erasers = new TenantErasers();
    deletion = new TenantDeletionService(repository, auth, new TenantDeletionMetrics(metrics, repository), erasers, logger);
    calls = [];
    const created = await users.createUser('admin', true);
    admin = { userId: created.id, organizationId: created.id, keyId: created.key.id, scopes: [], fullAccess: true, isAdmin: true };
  });

  afterEach(async () => {
    await auth.onModuleDestroy();
    await bus.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses the keys first, runs the erasers phase by phase, deletes the keys and the user last, and logs what went', async () => {
    const tenant = await users.createUser('acme corp', false);
    expect(await authenticates(tenant.key.key)).toBe(true); // cached now, for a minute
    // Every replica hears of the key (the bus delivers asynchronously: the test waits for the message).
    const broadcast = new Promise<unknown>((resolve) => void bus.subscribe(AUTH_REVOKED_CHANNEL, resolve));
    // Registered out of phase order: the phases decide.
    register('sites', 'data', async (userId) => {
      // Every eraser runs with the tenant already refused: its keys stopped before anything was deleted.
      expect(await authenticates(tenant.key.key)).toBe(false);
      expect((await repository.findUser(userId))?.deleting_at).toEqual(expect.any(String));
      return 3;
    });
    register('running_jobs', 'jobs', async () => 2);
    register('monitor_schedules', 'schedules', async () => 1);
    register('jobs', 'data', async () => 5);

    await deletion.delete(admin, tenant.id);

    expect(calls).toEqual([`monitor_schedules:${tenant.id}`, `running_jobs:${tenant.id}`, `sites:${tenant.id}`, `jobs:${tenant.id}`]);
    expect(await repository.findUser(tenant.id)).toBeNull();
    expect(await repository.listKeys({ userId: tenant.id })).toEqual([]);
    expect(await authenticates(tenant.key.key)).toBe(false);
    expect(await broadcast).toEqual({ key_hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await users.listAll()).users.map((u) => u.id)).toEqual([admin.userId]);
    const done = log.lines.find((line) => line.msg === 'tenant deleted');
    expect(done).toMatchObject({
      user_id: tenant.id,
      resumed: false,
      erased: { monitor_schedules: 1, running_jobs: 2, sites: 3, jobs: 5, keys: 1, user: 1 },
    });
    // Neither the user's name nor its key appear in the log.
    const text = JSON.stringify(log.lines);
    expect(text).not.toContain('acme corp');
    expect(text).not.toContain(tenant.key.key);
    expect(await metric('gleaner_tenant_deletions_total')).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/outcome="completed",role="test"} 1$/),
        expect.stringMatching(/outcome="failed",role="test"} 0$/),
      ]),
    );
  });

  it('answers 404 for an unknown user (also once deleted) and 409 for an admin user, the caller’s own included', async () => {
    expect(await slug(deletion.delete(admin, 'no-such-user'))).toBe('not-found');
    const otherAdmin = await users.createUser('ops', true);
    expect(await slug(deletion.delete(admin, admin.userId))).toBe('conflict');
    expect(await slug(deletion.delete(admin, otherAdmin.id))).toBe('conflict');
    expect(await authenticates(otherAdmin.key.key)).toBe(true);
    const tenant = await users.createUser('gone', false);
    await deletion.delete(admin, tenant.id);
    expect(await slug(deletion.delete(admin, tenant.id))).toBe('not-found');
    expect(calls).toEqual([]); // no eraser registered: nothing ran for the refusals
  });

  it('a deletion that stops half way keeps the user "deleting" with its keys refused; DELETE again finishes it', async () => {
    const tenant = await users.createUser('half', false);
    let failOnce = true;
    register('jobs', 'data', async () => {
      if (failOnce) {
        failOnce = false;
        throw new Error('store went away');
      }
      return 4;
    });
    register('sites', 'data');

    await expect(deletion.delete(admin, tenant.id)).rejects.toThrow('store went away');
    expect(calls).toEqual([`jobs:${tenant.id}`]);
    expect((await users.listAll()).users.find((u) => u.id === tenant.id)).toMatchObject({ status: 'deleting' });
    expect(await authenticates(tenant.key.key)).toBe(false);
    expect(await deletion.unfinished(10)).toEqual([{ id: tenant.id, deleting_since: expect.any(String) }]);
    expect(log.lines.find((line) => line.msg?.toString().startsWith('tenant deletion stopped'))).toMatchObject({
      user_id: tenant.id,
      step: 'jobs',
    });
    expect(await metric('gleaner_tenant_deletions_total{outcome="failed"')).toEqual([expect.stringMatching(/ 1$/)]);
    expect(await metric('gleaner_tenant_deletions_pending')).toEqual([expect.stringMatching(/ 1$/)]);

    await deletion.delete(admin, tenant.id);
    expect(calls).toEqual([`jobs:${tenant.id}`, `jobs:${tenant.id}`, `sites:${tenant.id}`]);
    expect(await repository.findUser(tenant.id)).toBeNull();
    expect(log.lines.filter((line) => line.msg === 'tenant deleted')).toEqual([expect.objectContaining({ resumed: true })]);
    expect(await metric('gleaner_tenant_deletions_pending')).toEqual([expect.stringMatching(/ 0$/)]);
  });

  it('a second DELETE while one runs in this process joins it: every eraser runs once', async () => {
    const tenant = await users.createUser('twice', false);
    const entered = deferred();
    const release = deferred();
    register('jobs', 'data', async () => {
      entered.resolve();
      await release.promise;
      return 1;
    });
    const first = deletion.delete(admin, tenant.id);
    await entered.promise;
    const second = deletion.delete(admin, tenant.id);
    release.resolve();
    await Promise.all([first, second]);
    expect(calls).toEqual([`jobs:${tenant.id}`]);
    expect(await repository.findUser(tenant.id)).toBeNull();
  });

  it('the resumer finishes, at start, every deletion that stopped half way (a crash between the mark and the end)', async () => {
    const a = await users.createUser('a', false);
    const b = await users.createUser('b', false);
    const kept = await users.createUser('kept', false);
    // What a crash right after the mark leaves: two users marked, nothing erased yet.
    await repository.markDeleting(a.id, '2026-01-01T00:00:00.000Z');
    await repository.markDeleting(b.id, '2026-01-02T00:00:00.000Z');
    register('sites', 'data');

    const resumer = new TenantDeletionResumer(deletion, createLogger({ level: 'info', destination: log }));
    resumer.onApplicationBootstrap();
    try {
      expect(await resumer.startRound).toBe(2);
    } finally {
      resumer.onApplicationShutdown();
    }
    expect(calls).toEqual([`sites:${a.id}`, `sites:${b.id}`]);
    expect((await users.listAll()).users.map((u) => u.id).sort()).toEqual([admin.userId, kept.id].sort());
    expect(await authenticates(kept.key.key)).toBe(true);
  });

  it('a periodic round leaves a deletion that began recently to the request running it', async () => {
    const tenant = await users.createUser('recent', false);
    await repository.markDeleting(tenant.id, '2026-06-01T00:00:00.000Z');
    register('sites', 'data');
    const resumer = new TenantDeletionResumer(deletion, createLogger({ level: 'info', destination: log }));
    expect(await resumer.resume('2026-06-01T00:00:00.000Z')).toBe(0);
    expect(calls).toEqual([]);
    expect(await resumer.resume('2026-06-01T00:00:00.001Z')).toBe(1);
    expect(await repository.findUser(tenant.id)).toBeNull();
  });
});
