/**
 * The delivery ledger's contract (DeliveryLedgerPort, docs/crawl.md "A page that kills its worker"): both adapters
 * (Redis in a cluster, the document store embedded) must pass exactly this suite. `peer()` is another process's
 * ledger on the same backing service: a count one process made holds for the other at once, as a page task
 * redelivered to another replica needs. Task ids are unique across scopes (a page task's embeds its job id).
 */
import type { DeliveryLedgerPort } from '@app/queue';

export interface DeliveryLedgerSetup {
  create(): Promise<DeliveryLedgerPort>;
  peer(of: DeliveryLedgerPort): Promise<DeliveryLedgerPort>;
}

let seq = 0;
const scope = (label: string) => `${label}-${process.pid}-${Date.now().toString(36)}-${seq++}`;

export function deliveryLedgerContract(setup: () => DeliveryLedgerSetup): void {
  const open = new Set<DeliveryLedgerPort>();
  async function ledger(): Promise<DeliveryLedgerPort> {
    const l = await setup().create();
    open.add(l);
    return l;
  }
  afterEach(async () => {
    await Promise.all([...open].map((l) => l.close()));
    open.clear();
  });

  it('counts each delivery of a task, across processes, apart from other tasks and scopes', async () => {
    const a = await ledger();
    const b = await setup().peer(a);
    open.add(b);
    const job = scope('count');
    expect(await a.count(job, `${job}:t1`)).toBe(1);
    expect(await b.count(job, `${job}:t1`)).toBe(2);
    expect(await a.count(job, `${job}:t2`)).toBe(1);
    const other = scope('other');
    expect(await b.count(other, `${other}:t1`)).toBe(1);
  });

  it('counts runs alone beside deliveries, and takes back a handed-back delivery, never below zero', async () => {
    const a = await ledger();
    const job = scope('alone');
    const task = `${job}:t`;
    await a.count(job, task);
    await a.count(job, task);
    expect(await a.ranAlone(job, task)).toEqual({ deliveries: 2, aloneRuns: 1 });
    await a.uncount(job, task, true);
    expect(await a.ranAlone(job, task)).toEqual({ deliveries: 1, aloneRuns: 1 });
    await a.uncount(job, task, false);
    await a.uncount(job, task, false);
    await a.uncount(job, task, true);
    await a.uncount(job, task, true);
    expect(await a.ranAlone(job, task)).toEqual({ deliveries: 0, aloneRuns: 1 });
    expect(await a.count(job, task)).toBe(1);
  });

  it('counts concurrent first deliveries of one task one by one', async () => {
    const a = await ledger();
    const b = await setup().peer(a);
    open.add(b);
    const job = scope('race');
    const counts = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? a : b).count(job, `${job}:t`)));
    expect(counts.sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it("forgets committed tasks' counts, deliveries and runs alone, and drops a whole scope", async () => {
    const a = await ledger();
    const job = scope('forget');
    const other = scope('kept');
    for (const t of ['t1', 't2', 't3']) await a.count(job, `${job}:${t}`);
    await a.ranAlone(job, `${job}:t1`);
    await a.count(other, `${other}:t1`);
    await a.forget(job, []);
    await a.forget(job, [`${job}:t1`, `${job}:t2`]);
    expect(await a.ranAlone(job, `${job}:t1`)).toEqual({ deliveries: 0, aloneRuns: 1 });
    expect(await a.count(job, `${job}:t2`)).toBe(1);
    expect(await a.count(job, `${job}:t3`)).toBe(2);
    await a.drop(job);
    expect(await a.count(job, `${job}:t3`)).toBe(1);
    expect(await a.count(other, `${other}:t1`)).toBe(2);
  });
}
