import { whenHostFree, withHostSlot } from './host-slot';
import { MemoryPoliteness } from './memory-politeness';
import type { HostRequestPolicy } from './politeness.port';

const policy: HostRequestPolicy = { intervalMs: 0, maxInFlight: 1, leaseMs: 10_000 };

describe('withHostSlot', () => {
  it('runs the function under a slot and releases it, also when the function throws', async () => {
    const port = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    const inside = await withHostSlot(port, 'a.test', policy, async () => (await port.hostState('a.test')).inFlight);
    expect(inside).toEqual({ ran: true, value: 1 });
    expect((await port.hostState('a.test')).inFlight).toBe(0);
    await expect(withHostSlot(port, 'a.test', policy, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect((await port.hostState('a.test')).inFlight).toBe(0);
  });

  it('does not run the function when the host refuses, and says when to ask again', async () => {
    const port = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    let ran = false;
    const refused = await withHostSlot(port, 'b.test', policy, () =>
      withHostSlot(port, 'b.test', policy, async () => {
        ran = true;
      }),
    );
    expect(ran).toBe(false);
    expect(refused).toMatchObject({ ran: true, value: { ran: false, granted: false, reason: 'busy' } });
  });
});

describe('withHostSlot answered', () => {
  it('tells the port, with the release, whether the value was a normal answer', async () => {
    const port = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    const releases: Array<boolean | undefined> = [];
    const release = port.release.bind(port);
    port.release = (host, token, options) => {
      releases.push(options?.answered);
      return release(host, token, options);
    };
    const answered = { answered: (v: { ok: boolean }) => v.ok };
    await withHostSlot(port, 'e.test', policy, async () => ({ ok: true }), answered);
    await withHostSlot(port, 'e.test', policy, async () => ({ ok: false }), answered);
    await expect(withHostSlot(port, 'e.test', policy, () => Promise.reject(new Error('boom')), answered)).rejects.toThrow('boom');
    await withHostSlot(port, 'e.test', policy, async () => ({ ok: true }));
    expect(releases).toEqual([true, undefined, undefined, undefined]);
  });
});

describe('whenHostFree', () => {
  it('waits while the host is busy, then runs once it is free', async () => {
    const port = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    let release!: () => void;
    const held = withHostSlot(port, 'c.test', policy, () => new Promise<void>((resolve) => (release = resolve)));
    let tries = 0;
    const waiting = whenHostFree(port, 'c.test', policy, async () => 'ran', {
      beforeTry: () => {
        tries++;
        // The slot holder finishes once the waiter has been refused once.
        if (tries === 2) release();
      },
    });
    await expect(waiting).resolves.toBe('ran');
    await held;
    expect(tries).toBeGreaterThanOrEqual(2);
  });

  it('stops when beforeTry throws', async () => {
    const port = new MemoryPoliteness({ backoffBaseMs: 1000, backoffMaxMs: 10_000 });
    const stop = new Error('stopped');
    await expect(
      whenHostFree(port, 'd.test', policy, async () => 'ran', {
        beforeTry: () => {
          throw stop;
        },
      }),
    ).rejects.toBe(stop);
  });
});
