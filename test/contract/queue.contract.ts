/**
 * The queue contract (libs/queue/src/queue.port.ts), run against every adapter. Each test uses its own
 * queue name, so adapters share one backend per file. Timings are short: adapters are created with a
 * dead-worker threshold of ~1 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { HandBackError, PermanentError, type QueueMessage, type QueuePort } from '@app/queue';

export interface QueueContractSetup {
  /** A new adapter (a new "worker process") on the shared backend, tuned for fast stall detection. */
  create(): Promise<QueuePort>;
  /** Environment for test/fixtures/queue-dying-worker.ts so that it builds the same adapter. */
  childEnv(): Record<string, string>;
}

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'queue-dying-worker.ts');

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

let queueSeq = 0;
const queueName = (label: string) => `q-${label}-${process.pid}-${Date.now().toString(36)}-${queueSeq++}`;

export function queueContract(setup: () => QueueContractSetup): void {
  const open: QueuePort[] = [];
  const children: ChildProcess[] = [];

  async function adapter(): Promise<QueuePort> {
    const q = await setup().create();
    open.push(q);
    return q;
  }

  afterEach(async () => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(open.splice(0).map((q) => q.close()));
  });

  it('delivers each message once and round-trips the payload', async () => {
    const q = await adapter();
    const name = queueName('happy');
    const payloads = [1, 2, 3, 4, 5].map((n) => ({ n, text: `héllo ${n}`, nested: { list: [n, null, true], empty: {} } }));
    const ids = [];
    for (const p of payloads) ids.push(await q.enqueue(name, 'run-job', p));
    expect(new Set(ids).size).toBe(5);

    const seen: QueueMessage<(typeof payloads)[number]>[] = [];
    await q.process<(typeof payloads)[number]>(name, 2, async (m) => {
      seen.push(m);
    });
    await waitFor(() => seen.length >= 5, 5000, 'five deliveries');
    await delay(300);
    expect(seen).toHaveLength(5);
    expect(seen.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(seen.map((m) => m.payload).sort((a, b) => a.n - b.n)).toEqual(payloads);
    for (const m of seen) {
      expect(m).toMatchObject({ queue: name, name: 'run-job', attempt: 1, maxAttempts: 3 });
    }
    await waitFor(async () => (await q.counts(name)).active === 0, 2000, 'no active');
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('respects the concurrency limit', async () => {
    const q = await adapter();
    const name = queueName('conc');
    for (let i = 0; i < 9; i++) await q.enqueue(name, 'work', { i });
    let current = 0;
    let max = 0;
    let done = 0;
    await q.process(name, 3, async () => {
      current += 1;
      max = Math.max(max, current);
      await delay(120);
      current -= 1;
      done += 1;
    });
    await waitFor(() => done === 9, 8000, 'nine handlers');
    expect(max).toBe(3);
  });

  it('retries a failing message with exponential backoff', async () => {
    const q = await adapter();
    const name = queueName('retry');
    const attempts: { attempt: number; at: number }[] = [];
    await q.enqueue(name, 'flaky', { x: 1 }, { attempts: 3, backoff: { delayMs: 200 } });
    await q.process(name, 1, async (m) => {
      attempts.push({ attempt: m.attempt, at: Date.now() });
      if (m.attempt < 3) throw new Error(`fail ${m.attempt}`);
    });
    await waitFor(() => attempts.length === 3, 6000, 'three attempts');
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    const gap1 = attempts[1].at - attempts[0].at;
    const gap2 = attempts[2].at - attempts[1].at;
    expect(gap1).toBeGreaterThanOrEqual(180); // 200 ms
    expect(gap2).toBeGreaterThanOrEqual(380); // 400 ms
    expect(gap2).toBeGreaterThan(gap1);
    await waitFor(async () => (await q.counts(name)).active === 0, 2000, 'settled');
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('caps the backoff at maxDelayMs', async () => {
    const q = await adapter();
    const name = queueName('cap');
    const at: number[] = [];
    await q.enqueue(name, 'flaky', {}, { attempts: 3, backoff: { delayMs: 300, maxDelayMs: 300 } });
    await q.process(name, 1, async () => {
      at.push(Date.now());
      throw new Error('always');
    });
    await waitFor(() => at.length === 3, 5000, 'three attempts');
    expect(at[2] - at[1]).toBeLessThan(550); // would be 600 uncapped
  });

  it('gives up after `attempts` and keeps the message as failed', async () => {
    const q = await adapter();
    const name = queueName('giveup');
    let calls = 0;
    await q.enqueue(name, 'doomed', {}, { attempts: 2, backoff: { delayMs: 50 } });
    await q.process(name, 1, async () => {
      calls += 1;
      throw new Error('nope');
    });
    await waitFor(async () => (await q.counts(name)).failed === 1, 5000, 'failed');
    await delay(300);
    expect(calls).toBe(2);
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 1 });
  });

  it('does not retry a PermanentError', async () => {
    const q = await adapter();
    const name = queueName('perm');
    let calls = 0;
    await q.enqueue(name, 'bad', {}, { attempts: 5, backoff: { delayMs: 50 } });
    await q.process(name, 1, async () => {
      calls += 1;
      throw new PermanentError('invalid input');
    });
    await waitFor(async () => (await q.counts(name)).failed === 1, 5000, 'failed');
    await delay(300);
    expect(calls).toBe(1);
  });

  it('treats a jobId that is already waiting or active as a no-op', async () => {
    const q = await adapter();
    const name = queueName('dedupe');
    expect(await q.enqueue(name, 'job', { v: 1 }, { jobId: 'job-1' })).toBe('job-1');
    expect(await q.enqueue(name, 'job', { v: 2 }, { jobId: 'job-1' })).toBe('job-1');
    expect((await q.counts(name)).waiting).toBe(1);

    const seen: unknown[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await q.process(name, 2, async (m) => {
      seen.push(m.payload);
      await gate;
    });
    await waitFor(() => seen.length === 1, 3000, 'delivery');
    // Active: still a no-op.
    expect(await q.enqueue(name, 'job', { v: 3 }, { jobId: 'job-1' })).toBe('job-1');
    release();
    await delay(300);
    expect(seen).toEqual([{ v: 1 }]);
  });

  it('starts a failed jobId over when it is enqueued again', async () => {
    const q = await adapter();
    const name = queueName('refail');
    let fail = true;
    const seen: QueueMessage[] = [];
    await q.enqueue(name, 'job', { run: 1 }, { jobId: 'again-1', attempts: 1 });
    await q.process(name, 1, async (m) => {
      seen.push(m);
      if (fail) throw new Error('first run fails');
    });
    await waitFor(async () => (await q.counts(name)).failed === 1, 3000, 'failed');
    fail = false;
    expect(await q.enqueue(name, 'job', { run: 2 }, { jobId: 'again-1', attempts: 1 })).toBe('again-1');
    await waitFor(() => seen.length === 2, 3000, 'second run');
    expect(seen[1]).toMatchObject({ id: 'again-1', attempt: 1, payload: { run: 2 } });
    await waitFor(async () => (await q.counts(name)).active === 0, 2000, 'settled');
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('does not deliver a delayed message before its delay', async () => {
    const q = await adapter();
    const name = queueName('delay');
    const enqueuedAt = Date.now();
    await q.enqueue(name, 'later', {}, { delayMs: 700 });
    expect(await q.counts(name)).toMatchObject({ waiting: 0, delayed: 1 });
    let deliveredAt = 0;
    await q.process(name, 1, async () => {
      deliveredAt = Date.now();
    });
    await waitFor(() => deliveredAt > 0, 4000, 'delayed delivery');
    expect(deliveredAt - enqueuedAt).toBeGreaterThanOrEqual(680);
  });

  it('counts waiting, delayed, active and failed messages', async () => {
    const q = await adapter();
    const name = queueName('counts');
    await q.enqueue(name, 'a', {});
    await q.enqueue(name, 'b', {});
    await q.enqueue(name, 'c', {}, { delayMs: 60_000 });
    expect(await q.counts(name)).toEqual({ waiting: 2, active: 0, delayed: 1, failed: 0 });

    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = 0;
    await q.process(name, 1, async () => {
      started += 1;
      if (started === 1) await gate;
      else throw new PermanentError('the second one fails');
    });
    await waitFor(() => started === 1, 3000, 'first delivery');
    expect(await q.counts(name)).toEqual({ waiting: 1, active: 1, delayed: 1, failed: 0 });
    release();
    await waitFor(async () => (await q.counts(name)).failed === 1, 3000, 'second failed');
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 1 });
  });

  it('redelivers a handed-back message without using up an attempt', async () => {
    const q = await adapter();
    const name = queueName('handback');
    const attempts: number[] = [];
    await q.enqueue(name, 'job', {}, { attempts: 1 });
    await q.process(name, 1, async (m) => {
      attempts.push(m.attempt);
      if (attempts.length === 1) throw new HandBackError();
    });
    await waitFor(() => attempts.length === 2, 4000, 'redelivery');
    expect(attempts).toEqual([1, 1]);
    await waitFor(async () => (await q.counts(name)).active === 0, 2000, 'settled');
    expect((await q.counts(name)).failed).toBe(0);
  });

  it('stop() waits for in-flight handlers within the grace period', async () => {
    const q = await adapter();
    const name = queueName('stop');
    await q.enqueue(name, 'slow', {});
    let started = false;
    let finished = false;
    await q.process(name, 1, async () => {
      started = true;
      await delay(400);
      finished = true;
    });
    await waitFor(() => started, 3000, 'start');
    const t0 = Date.now();
    await q.stop(3000);
    expect(finished).toBe(true);
    expect(Date.now() - t0).toBeLessThan(2500);
    // It completed, so nothing is left.
    const observer = await adapter();
    expect(await observer.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 0 });
  });

  it('stop() aborts handlers past the grace period and they hand the message back', async () => {
    const q = await adapter();
    const name = queueName('stop-abort');
    await q.enqueue(name, 'long', { big: true }, { attempts: 1 });
    let aborted = false;
    let started = false;
    await q.process(name, 1, async (_m, signal) => {
      started = true;
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      aborted = true;
      throw new HandBackError();
    });
    await waitFor(() => started, 3000, 'start');
    await q.stop(100);
    expect(aborted).toBe(true);

    // Another worker gets it, still on its first (and only) attempt.
    const next = await adapter();
    const seen: QueueMessage[] = [];
    await next.process(name, 1, async (m) => {
      seen.push(m);
    });
    await waitFor(() => seen.length === 1, 4000, 'redelivery after hand-back');
    expect(seen[0]).toMatchObject({ attempt: 1, payload: { big: true } });
  });

  it('hands the message of a worker that died to another worker', async () => {
    const q = await adapter();
    const name = queueName('dead');
    const id = await q.enqueue(name, 'orphan', { survive: true }, { attempts: 3 });

    const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
      cwd: ROOT,
      env: { ...process.env, ...setup().childEnv(), QUEUE_FIXTURE_QUEUE: name },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await waitFor(() => stdout.includes(`took ${id}`) || child.exitCode !== null, 20_000, 'the child to take the message').catch(
      (error: Error) => {
        throw new Error(`${error.message}\nchild stdout: ${stdout}\nchild stderr: ${stderr}`);
      },
    );
    if (child.exitCode !== null) throw new Error(`child exited (${child.exitCode}): ${stderr}`);
    expect((await q.counts(name)).active).toBe(1);

    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGKILL');
    await exited;

    const killedAt = Date.now();
    const seen: QueueMessage[] = [];
    await q.process(name, 1, async (m) => {
      seen.push(m);
    });
    await waitFor(() => seen.length === 1, 10_000, 'the orphan to be redelivered');
    expect(seen[0]).toMatchObject({ id, payload: { survive: true } });
    expect(Date.now() - killedAt).toBeLessThan(8000);
    await delay(200);
    expect(seen).toHaveLength(1);
  }, 40_000);
}
