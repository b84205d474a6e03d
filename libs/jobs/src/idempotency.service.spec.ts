import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError } from '@app/core';
import { SqliteDocumentStore } from '@app/storage';
import { IDEMPOTENCY_PENDING_MS, IDEMPOTENCY_TTL_MS, IdempotencyService } from './idempotency.service';

describe('IdempotencyService', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let service: IdempotencyService;
  const fp = (body: unknown) => IdempotencyService.fingerprint({ method: 'POST', path: '/api/v1/crawl', query: {}, body });
  const answer = { status: 202, headers: { location: 'http://x/api/v1/jobs/j1' }, body: { job_id: 'j1' } };
  const slug = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (error: AppError) => error.slug,
    );

  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-idem-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    service = new IdempotencyService(store);
    await service.onModuleInit();
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('runs the first request, replays its answer for the same one, refuses another body (422) and a request still running (409)', async () => {
    const now = Date.now();
    const first = await service.begin('u1', 'k', fp({ a: 1, b: 2 }), now);
    expect(first.kind).toBe('run');
    expect(await slug(service.begin('u1', 'k', fp({ b: 2, a: 1 }), now))).toBe('idempotency-key-in-use');
    await service.complete('u1', 'k', (first as { token: string }).token, answer, now);
    expect(await service.begin('u1', 'k', fp({ b: 2, a: 1 }), now + 1000)).toEqual({ kind: 'replay', answer });
    expect(await slug(service.begin('u1', 'k', fp({ a: 2 }), now))).toBe('idempotency-key-reused');
    // Per tenant: another user's same key is theirs.
    expect((await service.begin('u2', 'k', fp({ a: 9 }), now)).kind).toBe('run');
  });

  it('frees a released key, a pending key whose replica died, and an answer older than 24 hours', async () => {
    const now = Date.now();
    const first = (await service.begin('u1', 'k', fp(1), now)) as { token: string };
    await service.release('u1', 'k', first.token);
    expect((await service.begin('u1', 'k', fp(2), now)).kind).toBe('run');
    expect((await service.begin('u1', 'k', fp(3), now + IDEMPOTENCY_PENDING_MS + 1)).kind).toBe('run');
    const done = (await service.begin('u1', 'd', fp(1), now)) as { token: string };
    await service.complete('u1', 'd', done.token, answer, now);
    expect((await service.begin('u1', 'd', fp(5), now + IDEMPOTENCY_TTL_MS + 1)).kind).toBe('run');
  });

  it('checks the key: 1 to 255 visible ASCII characters', () => {
    expect(IdempotencyService.checkKey(undefined)).toBeNull();
    expect(IdempotencyService.checkKey('order-42:retry')).toBe('order-42:retry');
    for (const bad of ['', 'a b', 'é', 'x'.repeat(256)]) expect(() => IdempotencyService.checkKey(bad)).toThrow(AppError);
  });
});
