import { ownerFixture, type OwnerFixture } from '../../../../test/support/crawl-owner';
import { Admission } from './admission';
import { ClaimBatch } from './claim-batch';
import type { WindowEntry } from './frontier-window';
import { HostSchedule } from './host-schedule';
import { InFlightPages } from './in-flight';
import type { RobotsVerdict } from './robots-gate';
import { TicketBook } from './ticket-book';

describe('Admission', () => {
  let f: OwnerFixture;
  let verdict: RobotsVerdict;
  let leaseHeld: boolean;
  let skipped: Array<[string, string]>;
  let putBack: WindowEntry[];
  let dropped: number;
  let rescans: number;
  let recounts: number;
  let tickets: TicketBook;
  let inFlight: InFlightPages;
  let admission: Admission;

  /** `batched`: claims go through the owner's claim batch (as the actor wires it), else one by one. */
  async function setUp(maxPages = 10, batched = false) {
    f = await ownerFixture({ max_pages: maxPages });
    verdict = { kind: 'allow' };
    leaseHeld = true;
    skipped = [];
    putBack = [];
    dropped = rescans = recounts = 0;
    tickets = new TicketBook(maxPages, (count, max) => f.repository.states.reserveTickets(f.run.jobId, f.run.epoch, count, max));
    inFlight = new InFlightPages(new HostSchedule({ delayMs: 0, minIntervalMs: 0, maxConcurrency: 4 }));
    admission = new Admission(f.run, {
      store: batched ? new ClaimBatch(f.repository.entries) : f.repository.entries,
      lease: {
        confirm: async () => {
          if (!leaseHeld) f.run.halt('lease-lost');
          return leaseHeld;
        },
      },
      tickets,
      robots: { verdict: async () => verdict },
      frontier: {
        skipPending: async (entry, _reason, why) => void skipped.push([entry.url, why]),
        putBack: (entry) => void putBack.push(entry),
        dropUnadmitted: () => void dropped++,
        rescan: () => void rescans++,
      },
      inFlight,
      counters: { recountQueued: async () => void recounts++ },
    });
  }
  afterEach(() => f.close());

  it('claims an allowed page with a ticket: running under this epoch, in flight', async () => {
    await setUp();
    const entry = await f.pending('/a');
    expect(await admission.admit(entry)).toBe(entry);
    expect(entry.ticket).toBe(1);
    expect(inFlight.has(entry.id)).toBe(true);
    expect(await f.repository.entries.entry(entry.id)).toMatchObject({
      status: 'running',
      lease_epoch: f.run.epoch,
      ticket: 1,
      admitted: true,
    });
  });

  it('a page not extracted (the seed with extract_from_seed false) needs no ticket', async () => {
    await setUp();
    const seed = await f.pending('/', { extract: false });
    expect(await admission.admit(seed)).toBe(seed);
    expect(seed.ticket).toBeNull();
    expect(await f.repository.entries.entry(seed.id)).toMatchObject({ status: 'running', admitted: false });
    expect(tickets.reservedCount).toBe(0);
  });

  it('skips a page robots.txt disallows, and defers one whose robots.txt cannot be read now', async () => {
    await setUp();
    const a = await f.pending('/private');
    verdict = { kind: 'skip', why: 'robots.txt disallows it' };
    expect(await admission.admit(a)).toBeNull();
    expect(skipped).toEqual([[a.url, 'robots.txt disallows it']]);
    const b = await f.pending('/later');
    verdict = { kind: 'defer', notBefore: 12345 };
    expect(await admission.admit(b)).toBeNull();
    expect(putBack).toEqual([expect.objectContaining({ id: b.id, notBefore: 12345, robotsDeferrals: 1 })]);
    expect(tickets.reservedCount).toBe(0);
  });

  it('closes admission when the tickets run out: unadmitted entries leave, urls_queued is recounted', async () => {
    await setUp(1);
    expect(await admission.admit(await f.pending('/a'))).not.toBeNull();
    expect(await admission.admit(await f.pending('/b'))).toBeNull();
    expect(admission.closed).toBe(true);
    expect(dropped).toBe(1);
    expect(recounts).toBe(1);
    expect(await admission.admit(await f.pending('/c'))).toBeNull();
    expect(dropped).toBe(1); // closes once
  });

  it('an owner whose reservation is refused because it is stale halts instead of closing admission', async () => {
    await setUp();
    await f.takeOver();
    leaseHeld = false;
    expect(await admission.admit(await f.pending('/a'))).toBeNull();
    expect(f.halts).toEqual(['lease-lost']);
    expect(admission.closed).toBe(false);
  });

  it('a ticket taken by another owner means this owner is stale: it halts', async () => {
    await setUp();
    const held = await f.pending('/held', { admitted: true, ticket: 1 });
    expect(held.ticket).toBe(1);
    expect(await admission.admit(await f.pending('/a'))).toBeNull(); // would get ticket 1 too
    expect(f.halts).toEqual(['lease-lost']);
  });

  it('gives the ticket back when the entry is no longer pending (closed by a redirect meanwhile)', async () => {
    await setUp();
    const a = await f.pending('/a');
    await f.repository.entries.skipPending(a.id, { error_category: 'duplicate' });
    expect(await admission.admit(a)).toBeNull();
    expect(tickets.freeCount).toBe(10); // the whole block (max_pages 10), none lost
    expect(inFlight.size).toBe(0);
  });

  it('a second copy of a page in flight here is dropped: its claim answers for the page running under this epoch, its ticket stays held', async () => {
    await setUp();
    const page = await f.pending('/a');
    expect(await admission.admit(page)).toBe(page);
    // A copy loaded from the store (its stored ticket with it) while the page was being admitted.
    const copy = { ...page };
    expect(await admission.admit(copy)).toBeNull();
    expect(inFlight.get(page.id)).toBe(page);
    expect(inFlight.size).toBe(1);
    expect(tickets.freeCount).toBe(9); // ticket 1 is the page's: not given back
  });

  it('a claim asked again after its answer was lost admits the page (running under this epoch already)', async () => {
    await setUp(10, true);
    const page = await f.pending('/a');
    page.ticket = 1;
    await f.repository.entries.claim(page.id, f.run.epoch, { ticket: 1, admitted: true }); // written, answer lost
    expect(await admission.admit(page)).toBe(page);
    expect(inFlight.has(page.id)).toBe(true);
  });

  it('restores tickets and adopts the pages in flight under the previous owner, handed out first', async () => {
    await setUp(2);
    admission.restoreTickets(2, new Set([1, 2]));
    expect(admission.closed).toBe(true);
    expect(dropped).toBe(1);
    const entry = (await f.repository.entries.entry((await f.pending('/adopted', { status: 'running', ticket: 1, admitted: true })).id))!;
    admission.adopt(entry);
    expect(inFlight.has(entry._id)).toBe(true);
    const adopted = admission.takeAdopted();
    expect(adopted).toMatchObject({ id: entry._id, ticket: 1, outcomeMayBeStored: true, mayBeAnnounced: true });
    expect(admission.hasAdopted).toBe(false);
  });
});
