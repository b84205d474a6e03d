/**
 * The queue contract (libs/queue/src/queue.port.ts), run against every adapter. Each test uses its own
 * queue name, so adapters share one backend per file. Adapters are created with a dead-worker
 * threshold of ~1 s. Nothing here measures time: tests wait for observable conditions (generous
 * deadlines, for a busy machine) and check durable queue state rather than "nothing happened for N ms".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { StoreUnavailableError } from '@app/core';
import { backoffDelayMs, HandBackError, PermanentError, type QueueMessage, type QueuePort, type RetryDelay } from '@app/queue';

export interface QueueContractSetup {
  /**
   * A new adapter (a new "worker process") on the shared backend, tuned for fast stall detection;
   * `retryDelay` is handed to the adapter (it decides the wait before each retry).
   */
  create(options?: { retryDelay?: RetryDelay }): Promise<QueuePort>;
  /**
   * Environment for test/fixtures/queue-dying-worker.ts so that it builds the same adapter; null for
   * an in-process adapter, whose messages never reach another process (no dead-worker test then).
   */
  childEnv(): Record<string, string> | null;
}

const ROOT = join(__dirname, '..', '..');
const FIXTURE = join(ROOT, 'test', 'fixtures', 'queue-dying-worker.ts');

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const EMPTY = { waiting: 0, active: 0, delayed: 0, failed: 0 };

/** A promise the test settles when it chooses (a gate a handler blocks on). */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

let queueSeq = 0;
const queueName = (label: string) => `q-${label}-${process.pid}-${Date.now().toString(36)}-${queueSeq++}`;

export function queueContract(setup: () => QueueContractSetup, scope: { crossProcess: boolean } = { crossProcess: true }): void {
  const open: QueuePort[] = [];
  const children: ChildProcess[] = [];

  async function adapter(options?: { retryDelay?: RetryDelay }): Promise<QueuePort> {
    const q = await setup().create(options);
    open.push(q);
    return q;
  }

  /** The real retry delays, recorded as the adapter asks for them. */
  function recordedDelays(): { delays: Array<{ attempt: number; ms: number }>; retryDelay: RetryDelay } {
    const delays: Array<{ attempt: number; ms: number }> = [];
    return {
      delays,
      retryDelay: (attempt, backoff) => {
        const ms = backoffDelayMs(attempt, backoff);
        delays.push({ attempt, ms });
        return ms;
      },
    };
  }

  /** Once a queue holds nothing (no waiting, delayed, active or failed message), nothing more can be delivered from it. */
  const drained = (q: QueuePort, name: string) =>
    waitFor(async () => JSON.stringify(await q.counts(name)) === JSON.stringify(EMPTY), 30_000, `${name} to be empty`);

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
    await waitFor(() => seen.length >= 5, 30_000, 'five deliveries');
    // Every message is done and gone: nothing is left that could be delivered a second time.
    await drained(q, name);
    expect(seen).toHaveLength(5);
    expect(seen.map((m) => m.id).sort()).toEqual([...ids].sort());
    expect(seen.map((m) => m.payload).sort((a, b) => a.n - b.n)).toEqual(payloads);
    for (const m of seen) {
      expect(m).toMatchObject({ queue: name, name: 'run-job', attempt: 1, maxAttempts: 3 });
    }
  });

  it('respects the concurrency limit', async () => {
    const q = await adapter();
    const name = queueName('conc');
    for (let i = 0; i < 9; i++) await q.enqueue(name, 'work', { i });
    let current = 0;
    let max = 0;
    let done = 0;
    const held = gate();
    await q.process(name, 3, async () => {
      current += 1;
      max = Math.max(max, current);
      await held.promise;
      current -= 1;
      done += 1;
    });
    // Handlers block until released: three run at once, and the queue itself records that only
    // three messages were taken (the other six still wait).
    await waitFor(() => current >= 3, 30_000, 'three handlers running');
    expect(await q.counts(name)).toEqual({ waiting: 6, active: 3, delayed: 0, failed: 0 });
    expect(max).toBe(3);
    held.open();
    await waitFor(() => done === 9, 30_000, 'nine handlers');
    expect(max).toBe(3);
  });

  it('retries a failing message with exponential backoff', async () => {
    const { delays, retryDelay } = recordedDelays();
    const q = await adapter({ retryDelay });
    const name = queueName('retry');
    const attempts: number[] = [];
    await q.enqueue(name, 'flaky', { x: 1 }, { attempts: 3, backoff: { delayMs: 200 } });
    await q.process(name, 1, async (m) => {
      attempts.push(m.attempt);
      if (m.attempt < 3) throw new Error(`fail ${m.attempt}`);
    });
    await waitFor(() => attempts.length === 3, 30_000, 'three attempts');
    expect(attempts).toEqual([1, 2, 3]);
    // The waits the adapter scheduled: 200 ms after the first failure, 400 ms after the second.
    expect(delays).toEqual([
      { attempt: 1, ms: 200 },
      { attempt: 2, ms: 400 },
    ]);
    await drained(q, name);
  });

  it('caps the backoff at maxDelayMs', async () => {
    const { delays, retryDelay } = recordedDelays();
    const q = await adapter({ retryDelay });
    const name = queueName('cap');
    let calls = 0;
    await q.enqueue(name, 'flaky', {}, { attempts: 3, backoff: { delayMs: 300, maxDelayMs: 300 } });
    await q.process(name, 1, async () => {
      calls += 1;
      throw new Error('always');
    });
    await waitFor(async () => (await q.counts(name)).failed === 1, 30_000, 'failed');
    expect(calls).toBe(3);
    expect(delays.map((d) => d.ms)).toEqual([300, 300]); // 600 uncapped
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
    await waitFor(async () => (await q.counts(name)).failed === 1, 30_000, 'failed');
    // Failed for good and nothing else left in the queue: no further delivery can follow.
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 1 });
    expect(calls).toBe(2);
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
    await waitFor(async () => (await q.counts(name)).failed === 1, 30_000, 'failed');
    // Failed for good and nothing else left in the queue: no retry can follow.
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 0, failed: 1 });
    expect(calls).toBe(1);
  });

  it('treats a jobId that is already waiting or active as a no-op', async () => {
    const q = await adapter();
    const name = queueName('dedupe');
    expect(await q.enqueue(name, 'job', { v: 1 }, { jobId: 'job-1' })).toBe('job-1');
    expect(await q.enqueue(name, 'job', { v: 2 }, { jobId: 'job-1' })).toBe('job-1');
    expect((await q.counts(name)).waiting).toBe(1);

    const seen: unknown[] = [];
    const held = gate();
    await q.process(name, 2, async (m) => {
      seen.push(m.payload);
      await held.promise;
    });
    await waitFor(() => seen.length === 1, 30_000, 'delivery');
    // Active: still a no-op (the queue holds the one active message and nothing else).
    expect(await q.enqueue(name, 'job', { v: 3 }, { jobId: 'job-1' })).toBe('job-1');
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 1, delayed: 0, failed: 0 });
    held.open();
    // Done and gone: no copy is left that could still be delivered.
    await drained(q, name);
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
    await waitFor(async () => (await q.counts(name)).failed === 1, 30_000, 'failed');
    fail = false;
    expect(await q.enqueue(name, 'job', { run: 2 }, { jobId: 'again-1', attempts: 1 })).toBe('again-1');
    await waitFor(() => seen.length === 2, 30_000, 'second run');
    expect(seen[1]).toMatchObject({ id: 'again-1', attempt: 1, payload: { run: 2 } });
    await drained(q, name);
  });

  it('does not deliver a delayed message before its delay', async () => {
    const q = await adapter();
    const name = queueName('delay');
    await q.enqueue(name, 'later', { n: 'later' }, { delayMs: 3000 });
    expect(await q.counts(name)).toMatchObject({ waiting: 0, delayed: 1 });
    const seen: string[] = [];
    await q.process<{ n: string }>(name, 1, async (m) => {
      seen.push(m.payload.n);
    });
    // Ordering against an explicit event instead of a stopwatch: a message enqueued after the delayed
    // one, to the same running consumer, is delivered while the delayed one still waits its turn.
    await q.enqueue(name, 'now', { n: 'now' });
    await waitFor(() => seen.length >= 1, 30_000, 'the immediate delivery');
    await waitFor(async () => (await q.counts(name)).active === 0, 30_000, 'the immediate message to settle');
    expect(seen).toEqual(['now']);
    expect(await q.counts(name)).toEqual({ waiting: 0, active: 0, delayed: 1, failed: 0 });
    await waitFor(() => seen.length === 2, 30_000, 'the delayed delivery');
    expect(seen).toEqual(['now', 'later']);
  });

  it('counts waiting, delayed, active and failed messages', async () => {
    const q = await adapter();
    const name = queueName('counts');
    await q.enqueue(name, 'a', {});
    await q.enqueue(name, 'b', {});
    await q.enqueue(name, 'c', {}, { delayMs: 60_000 });
    expect(await q.counts(name)).toEqual({ waiting: 2, active: 0, delayed: 1, failed: 0 });

    const held = gate();
    let started = 0;
    await q.process(name, 1, async () => {
      started += 1;
      if (started === 1) await held.promise;
      else throw new PermanentError('the second one fails');
    });
    await waitFor(() => started === 1, 30_000, 'first delivery');
    expect(await q.counts(name)).toEqual({ waiting: 1, active: 1, delayed: 1, failed: 0 });
    held.open();
    await waitFor(async () => (await q.counts(name)).failed === 1, 30_000, 'second failed');
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
    await waitFor(() => attempts.length === 2, 30_000, 'redelivery');
    expect(attempts).toEqual([1, 1]);
    await drained(q, name);
  });

  it('redelivers a message whose handler met a store outage, however often, without using up an attempt', async () => {
    const q = await adapter();
    const name = queueName('outage');
    const attempts: number[] = [];
    await q.enqueue(name, 'job', {}, { attempts: 1 });
    await q.process(name, 1, async (m) => {
      attempts.push(m.attempt);
      // As the store adapters throw it, and wrapped by code that keeps the cause.
      if (attempts.length === 1) throw new StoreUnavailableError(new Error('connection refused'));
      if (attempts.length === 2) throw new Error('the page could not be saved', { cause: new StoreUnavailableError() });
    });
    await waitFor(() => attempts.length === 3, 30_000, 'redelivery after the outage');
    expect(attempts).toEqual([1, 1, 1]);
    await drained(q, name);
  });

  it('stop() waits for in-flight handlers within the grace period', async () => {
    const q = await adapter();
    const name = queueName('stop');
    await q.enqueue(name, 'slow', {});
    let started = false;
    let finished = false;
    let abortedWhileRunning = false;
    const held = gate();
    await q.process(name, 1, async (_m, signal) => {
      started = true;
      await held.promise;
      abortedWhileRunning = signal.aborted;
      finished = true;
    });
    await waitFor(() => started, 30_000, 'start');
    // A grace period far beyond the test timeout: stop() can only return in time by noticing that
    // the handler finished, not by running out its grace.
    let stopped = false;
    const stopping = q.stop(600_000).then(() => {
      stopped = true;
    });
    const observer = await adapter();
    // Still running and still held by its worker: stop() neither returned nor handed it back.
    expect(await observer.counts(name)).toEqual({ waiting: 0, active: 1, delayed: 0, failed: 0 });
    expect(stopped).toBe(false);
    held.open();
    await stopping;
    expect(finished).toBe(true);
    expect(abortedWhileRunning).toBe(false);
    // It completed, so nothing is left.
    expect(await observer.counts(name)).toEqual(EMPTY);
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
    await waitFor(() => started, 30_000, 'start');
    await q.stop(100);
    expect(aborted).toBe(true);

    // Another worker gets it, still on its first (and only) attempt.
    const next = await adapter();
    const seen: QueueMessage[] = [];
    await next.process(name, 1, async (m) => {
      seen.push(m);
    });
    await waitFor(() => seen.length === 1, 30_000, 'redelivery after hand-back');
    expect(seen[0]).toMatchObject({ attempt: 1, payload: { big: true } });
  });

  // An in-process queue has no other process to hand a message to (a dead process takes its queue with
  // it; what re-sends its work is the caller's concern), so this case is not part of its contract.
  if (scope.crossProcess)
    it('hands the message of a worker that died to another worker', async () => {
      const q = await adapter();
      const name = queueName('dead');
      const id = await q.enqueue(name, 'orphan', { survive: true }, { attempts: 3 });

      const child = spawn(process.execPath, ['--import', 'tsx', FIXTURE], {
        cwd: ROOT,
        env: { ...process.env, ...(setup().childEnv() ?? {}), QUEUE_FIXTURE_QUEUE: name },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await waitFor(() => stdout.includes(`took ${id}`) || child.exitCode !== null, 60_000, 'the child to take the message').catch(
        (error: Error) => {
          throw new Error(`${error.message}\nchild stdout: ${stdout}\nchild stderr: ${stderr}`);
        },
      );
      if (child.exitCode !== null) throw new Error(`child exited (${child.exitCode}): ${stderr}`);
      expect((await q.counts(name)).active).toBe(1);

      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;

      const seen: QueueMessage[] = [];
      await q.process(name, 1, async (m) => {
        seen.push(m);
      });
      // Only the dead-worker rule can hand it over: the child still "holds" it, but renews nothing.
      await waitFor(() => seen.length === 1, 30_000, 'the orphan to be redelivered');
      expect(seen[0]).toMatchObject({ id, payload: { survive: true } });
      // Done and gone: no second copy is left to deliver.
      await drained(q, name);
      expect(seen).toHaveLength(1);
    }, 150_000);
}
