/**
 * The event bus contract (libs/events/src/event-bus.port.ts). `peer()` is another process's view of
 * the same bus: a second RedisEventBus on the same server, or the same LocalEventBus (in embedded
 * mode every component of the process shares one instance).
 */
import type { EventBusPort } from '@app/events';

export interface EventBusContractSetup {
  create(): Promise<EventBusPort>;
  peer(of: EventBusPort): Promise<EventBusPort>;
}

/** Deadlines are generous: a busy machine may deliver late, and a met condition returns at once. */
async function waitFor(condition: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let seq = 0;
const channel = (label: string) => `ch-${label}-${process.pid}-${Date.now().toString(36)}-${seq++}`;

export function eventBusContract(setup: () => EventBusContractSetup): void {
  const open = new Set<EventBusPort>();
  async function bus(): Promise<EventBusPort> {
    const b = await setup().create();
    open.add(b);
    return b;
  }
  async function peer(of: EventBusPort): Promise<EventBusPort> {
    const b = await setup().peer(of);
    open.add(b);
    return b;
  }
  afterEach(async () => {
    await Promise.all([...open].map((b) => b.close()));
    open.clear();
  });

  it('delivers a published message to a subscriber, as JSON', async () => {
    const b = await bus();
    const ch = channel('basic');
    const got: unknown[] = [];
    await b.subscribe(ch, (m) => got.push(m));
    const message = { job_id: 'j1', status: 'running', n: 3, nested: { ok: true, list: [1, 'two', null] } };
    await b.publish(ch, message);
    await waitFor(() => got.length === 1, 30_000, 'delivery');
    expect(got[0]).toEqual(message);
    expect(got[0]).not.toBe(message);
  });

  it('does not call the handler synchronously inside publish()', async () => {
    const b = await bus();
    const ch = channel('async');
    let calledDuringPublish = false;
    let publishing = false;
    const got: unknown[] = [];
    await b.subscribe(ch, (m) => {
      if (publishing) calledDuringPublish = true;
      got.push(m);
    });
    publishing = true;
    const pending = b.publish(ch, 1);
    publishing = false;
    await pending;
    await waitFor(() => got.length === 1);
    expect(calledDuringPublish).toBe(false);
  });

  it('keeps publish order per channel', async () => {
    const b = await bus();
    const ch = channel('order');
    const got: number[] = [];
    await b.subscribe(ch, (m) => got.push(m as number));
    const sends: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) sends.push(b.publish(ch, i));
    await Promise.all(sends);
    await waitFor(() => got.length === 100, 30_000, '100 messages');
    expect(got).toEqual([...Array(100).keys()]);
  });

  it('only delivers to subscribers of the channel', async () => {
    const b = await bus();
    const a = channel('a');
    const c = channel('c');
    const gotA: unknown[] = [];
    const gotC: unknown[] = [];
    await b.subscribe(a, (m) => gotA.push(m));
    await b.subscribe(c, (m) => gotC.push(m));
    await b.publish(a, 'for-a');
    await b.publish(c, 'for-c');
    await waitFor(() => gotA.length === 1 && gotC.length === 1);
    expect(gotA).toEqual(['for-a']);
    expect(gotC).toEqual(['for-c']);
  });

  it('stops delivering after unsubscribe, leaving other handlers subscribed', async () => {
    const b = await bus();
    const ch = channel('unsub');
    const first: unknown[] = [];
    const second: unknown[] = [];
    const unsubscribe = await b.subscribe(ch, (m) => first.push(m));
    await b.subscribe(ch, (m) => second.push(m));
    await b.publish(ch, 1);
    await waitFor(() => first.length === 1 && second.length === 1);
    await unsubscribe();
    await unsubscribe(); // idempotent
    await b.publish(ch, 2);
    await waitFor(() => second.length === 2);
    expect(first).toEqual([1]);
    expect(second).toEqual([1, 2]);
  });

  it('fans out to subscribers on every replica', async () => {
    const one = await bus();
    const two = await peer(one);
    const ch = channel('fanout');
    const gotOne: unknown[] = [];
    const gotTwo: unknown[] = [];
    await one.subscribe(ch, (m) => gotOne.push(m));
    await two.subscribe(ch, (m) => gotTwo.push(m));
    await one.publish(ch, { from: 'one' });
    await two.publish(ch, { from: 'two' });
    await waitFor(() => gotOne.length === 2 && gotTwo.length === 2, 30_000, 'both replicas');
    expect(gotOne).toEqual([{ from: 'one' }, { from: 'two' }]);
    expect(gotTwo).toEqual([{ from: 'one' }, { from: 'two' }]);
  });

  it('keeps delivering to other handlers when one throws', async () => {
    const b = await bus();
    const ch = channel('throw');
    const got: unknown[] = [];
    await b.subscribe(ch, () => {
      throw new Error('boom');
    });
    await b.subscribe(ch, (m) => got.push(m));
    await b.publish(ch, 'x');
    await b.publish(ch, 'y');
    await waitFor(() => got.length === 2);
    expect(got).toEqual(['x', 'y']);
  });
}
