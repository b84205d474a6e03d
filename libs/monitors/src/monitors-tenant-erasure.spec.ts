import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TenantErasers } from '@app/core';
import { SqliteDocumentStore } from '@app/storage';
import { MonitorRunsRepository } from './monitor-runs.repository';
import { MonitorStateRepository } from './monitor-state.repository';
import type { MonitorRecord, MonitorRunRecord } from './monitor.types';
import { MonitorsRepository } from './monitors.repository';
import { MonitorsTenantErasure } from './monitors-tenant-erasure';

const DUE = '2026-01-01T00:00:00.000Z';

/** What a stored monitor needs for these steps (the rest of its fields play no part in them). */
const monitor = (id: string, userId: string) =>
  ({
    _id: id,
    user_id: userId,
    paused: false,
    next_slot_at: DUE,
    next_run_at: DUE,
    created_at: DUE,
    updated_at: DUE,
  }) as unknown as MonitorRecord;
const run = (monitorId: string) =>
  ({ _id: `${monitorId}:${DUE}`, monitor_id: monitorId, job_id: `job-${monitorId}`, created_at: DUE }) as unknown as MonitorRunRecord;

describe('MonitorsTenantErasure (a tenant deletion: its monitors stop, then go with their history)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let monitors: MonitorsRepository;
  let runs: MonitorRunsRepository;
  let state: MonitorStateRepository;
  let erasers: TenantErasers;

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-monitors-erasure-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    monitors = new MonitorsRepository(store);
    runs = new MonitorRunsRepository(store);
    state = new MonitorStateRepository(store);
    for (const repository of [monitors, runs, state]) await repository.onModuleInit();
    erasers = new TenantErasers();
    new MonitorsTenantErasure(erasers, monitors, runs, state).onModuleInit();
    for (const [id, userId] of [
      ['m1', 'u1'],
      ['m2', 'u1'],
      ['m3', 'u2'],
    ]) {
      await monitors.insert(monitor(id, userId));
      await runs.claim(run(id));
      await state.rememberLastmods(`job-${id}`, id, [{ url: `https://${id}.example/`, lastmod: DUE }]);
    }
  });

  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('pauses every monitor of the tenant first (the scheduler finds none due), and erases them with their runs and state after', async () => {
    const [pause, erase] = erasers.inOrder();
    expect([pause.phase, erase.phase]).toEqual(['schedules', 'data']);

    expect(await pause.run('u1')).toBe(2);
    expect((await monitors.due('2030-01-01T00:00:00.000Z', 10)).map((m) => m._id)).toEqual(['m3']);
    expect(await monitors.findById('m1')).toMatchObject({ paused: true, next_run_at: null, next_slot_at: null });

    expect(await erase.run('u1')).toBe(2);
    for (const id of ['m1', 'm2']) {
      expect(await monitors.findById(id)).toBeNull();
      expect(await runs.list(id, 10, 0)).toEqual([]);
      expect(await state.lastmod(`job-${id}`, `https://${id}.example/`)).toBeNull();
    }
    // The other tenant's monitor, runs and state are untouched.
    expect(await monitors.findById('m3')).toMatchObject({ paused: false, next_run_at: DUE });
    expect(await runs.list('m3', 10, 0)).toHaveLength(1);
    expect(await state.lastmod('job-m3', 'https://m3.example/')).toBe(DUE);
    expect(await erase.run('u1')).toBe(0); // run again: nothing left
  });
});
