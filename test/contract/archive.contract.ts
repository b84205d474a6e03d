/**
 * The page archive contract (docs/archive.md): the same suite runs the embedded deployment's parts
 * (SQLite records, files under a data directory) and the cluster's (MongoDB records, GridFS on the
 * MongoDB-wire test server), so the archive behaves alike on both.
 */
import { createHash } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { newId } from '@app/core';
import {
  ArchiveRepository,
  BlobTooLarge,
  PageArchive,
  USAGE_FRESH_MS,
  type ArchiveBlobStore,
  type PageCapture,
  type PageArchiveSettings,
} from '@app/archive';
import type { Collection, Doc, DocumentStore } from '@app/storage';

export interface ArchiveParts {
  store: DocumentStore;
  blobs: ArchiveBlobStore;
}

const DAY = 24 * 60 * 60 * 1000;

const WRITES = new Set([
  'insertOne',
  'insertMany',
  'upsertMany',
  'findOneAndUpdate',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
]);

/** The store with its write calls counted per `<method> <collection>` (one call is one write command). */
function countingStore(store: DocumentStore): { store: DocumentStore; writes: string[] } {
  const writes: string[] = [];
  const wrap = <T extends Doc>(c: Collection<T>): Collection<T> =>
    new Proxy(c, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (WRITES.has(String(name))) writes.push(`${String(name)} ${target.name}`);
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  const counted: DocumentStore = {
    kind: store.kind,
    collection: async (spec) => wrap(await store.collection(spec)),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: counted, writes };
}

function capture(body: string | Buffer, extra: Partial<PageCapture> = {}): PageCapture {
  return {
    url: 'https://shop.test/p/1',
    finalUrl: 'https://shop.test/p/1',
    status: 200,
    headers: { 'content-type': 'text/html; charset=windows-1252', server: 'test' },
    redirects: [],
    mode: 'static',
    contentType: 'text/html',
    charset: 'windows-1252',
    body: typeof body === 'string' ? Buffer.from(body, 'latin1') : body,
    fetchedAt: new Date().toISOString(),
    ...extra,
  };
}

/** A page body of some size that compresses like HTML. */
function html(seed: string, repeat = 200): string {
  return `<html><body>${`<p class="item">${seed} caf\u00e9 price 12.50</p>`.repeat(repeat)}</body></html>`;
}

export function archiveContract(name: string, open: () => Promise<ArchiveParts>, close: (parts: ArchiveParts) => Promise<void>): void {
  describe(`page archive contract: ${name}`, () => {
    let parts: ArchiveParts;
    let repository: ArchiveRepository;
    const archiveWith = (settings: Partial<PageArchiveSettings> = {}) =>
      new PageArchive(repository, parts.blobs, { ttlDays: 30, maxBytesPerTenant: 0, maxBodyBytes: 10 * 1024 * 1024, ...settings });
    let archive: PageArchive;
    const tenant = () => `u_${newId()}`;
    /** The suite's blob store with another `write` (to count or fail writes). */
    const blobsWith = (write: ArchiveBlobStore['write']): ArchiveBlobStore => ({
      kind: parts.blobs.kind,
      write,
      writeStream: (id, source, maxBytes) => parts.blobs.writeStream(id, source, maxBytes),
      read: (id) => parts.blobs.read(id),
      readStream: (id) => parts.blobs.readStream(id),
      delete: (id) => parts.blobs.delete(id),
      close: async () => undefined,
    });

    beforeAll(async () => {
      parts = await open();
      repository = await ArchiveRepository.open(parts.store);
      archive = archiveWith();
    });
    afterAll(async () => close(parts));

    it('keeps a page as fetched and reads back its exact bytes, headers, redirects and mode', async () => {
      const user = tenant();
      const body = Buffer.from([0x3c, 0x70, 0x3e, 0xe9, 0xff, 0x00, 0x3c, 0x2f, 0x70, 0x3e]); // not UTF-8
      const kept = await archive.keep(
        user,
        'job1',
        'k1',
        capture(body, { redirects: ['https://shop.test/old'], finalUrl: 'https://shop.test/p/1?x=1', status: 203 }),
      );
      expect(kept).toBe('stored');
      const page = await archive.load(user, 'job1', 'k1');
      expect(page?.body.equals(body)).toBe(true);
      expect(page?.rendered).toBeNull();
      expect(page?.record).toMatchObject({
        url: 'https://shop.test/p/1',
        final_url: 'https://shop.test/p/1?x=1',
        status: 203,
        redirects: ['https://shop.test/old'],
        fetch_mode: 'static',
        charset: 'windows-1252',
        headers: { 'content-type': 'text/html; charset=windows-1252', server: 'test' },
        body_bytes: body.length,
        origin: 'fetch',
      });
      expect(page?.record.body_sha256).toMatch(/^[0-9a-f]{64}$/);
    });

    it('keeps the rendered HTML of a browser fetch beside the response body', async () => {
      const user = tenant();
      await archive.keep(
        user,
        'jobr',
        'k',
        capture('<html><script>render()</script></html>', { mode: 'dynamic', rendered: '<html><p>rendered \u2713</p></html>' }),
      );
      const page = await archive.load(user, 'jobr', 'k');
      expect(page?.body.toString('latin1')).toBe('<html><script>render()</script></html>');
      expect(page?.rendered?.toString('utf8')).toBe('<html><p>rendered \u2713</p></html>');
      expect(page?.record.fetch_mode).toBe('dynamic');
    });

    it('stores a body once per tenant, compressed, however many pages and jobs have it', async () => {
      const user = tenant();
      const body = html('same');
      expect(await archive.keep(user, 'jobA', 'k1', capture(body))).toBe('stored');
      expect(await archive.keep(user, 'jobA', 'k2', capture(body, { url: 'https://shop.test/p/2' }))).toBe('deduplicated');
      expect(await archive.keep(user, 'jobB', 'k1', capture(body))).toBe('deduplicated');
      const usage = await archive.usage(user);
      expect(usage.blobs).toBe(1);
      expect(usage.stored_bytes).toBeGreaterThan(0);
      expect(usage.stored_bytes).toBeLessThan(Buffer.byteLength(body) / 5);
      // Another tenant's copy of the same body is its own.
      const other = tenant();
      expect(await archive.keep(other, 'jobC', 'k1', capture(body))).toBe('stored');
      expect((await archive.usage(other)).blobs).toBe(1);
    });

    it("never shows one tenant's pages or bodies to another", async () => {
      const owner = tenant();
      const stranger = tenant();
      await archive.keep(owner, 'jobT', 'k', capture(html('secret')));
      const page = await archive.load(owner, 'jobT', 'k');
      expect(page).not.toBeNull();
      expect(await archive.load(stranger, 'jobT', 'k')).toBeNull();
      expect(await archive.record(stranger, 'jobT', 'k')).toBeNull();
      expect(await archive.body(stranger, page!.record.body_sha256)).toBeNull();
      expect(await archive.countJobPages(stranger, 'jobT')).toBe(0);
      await archive.deleteJob(stranger, 'jobT');
      expect(await archive.load(owner, 'jobT', 'k')).not.toBeNull();
    });

    it('deleting a job removes its pages and only the bodies no other job references', async () => {
      const user = tenant();
      await archive.keep(user, 'old', 'shared', capture(html('shared')));
      await archive.keep(user, 'old', 'own', capture(html('own')));
      await archive.keep(user, 'new', 'shared', capture(html('shared')));
      expect((await archive.usage(user)).blobs).toBe(2);
      const deleted = await archive.deleteJob(user, 'old');
      expect(deleted).toEqual({ pages: 2, bodies: 1 });
      expect(await archive.load(user, 'old', 'own')).toBeNull();
      expect((await archive.load(user, 'new', 'shared'))?.body.equals(Buffer.from(html('shared'), 'latin1'))).toBe(true);
      expect((await archive.usage(user)).blobs).toBe(1);
      expect(await archive.deleteJob(user, 'new')).toEqual({ pages: 1, bodies: 1 });
      expect(await archive.usage(user)).toEqual({ stored_bytes: 0, blobs: 0 });
    });

    it('a re-extraction copy keeps the bodies alive after its source job is deleted', async () => {
      const user = tenant();
      await archive.keep(user, 'src', 'k', capture(html('copied'), { mode: 'dynamic', rendered: html('rendered copy') }));
      const copied = await archive.copy(user, 'src', 'rex', 'k');
      expect(copied?.record.job_id).toBe('rex');
      expect(copied?.record.expires_at).toBe((await archive.record(user, 'src', 'k'))?.expires_at);
      await archive.deleteJob(user, 'src');
      const page = await archive.load(user, 'rex', 'k');
      expect(page?.body.equals(Buffer.from(html('copied'), 'latin1'))).toBe(true);
      expect(page?.rendered?.equals(Buffer.from(html('rendered copy'), 'utf8'))).toBe(true);
      expect(await archive.copy(user, 'src', 'rex2', 'k')).toBeNull();
    });

    it("a copy under another key (an extract's one page, re-extracted as a crawl page) is found under the new key only", async () => {
      const user = tenant();
      await archive.keep(user, 'ext', 'single', capture(html('one page')));
      const copied = await archive.copy(user, 'ext', 'rex', '3f2a9c', 'single');
      expect(copied?.record).toMatchObject({ _id: 'rex:3f2a9c', job_id: 'rex', key: '3f2a9c' });
      expect((await archive.load(user, 'rex', '3f2a9c'))?.body.equals(Buffer.from(html('one page'), 'latin1'))).toBe(true);
      expect(await archive.load(user, 'rex', 'single')).toBeNull();
      expect(await archive.copy(user, 'ext', 'rex3', 'x', 'missing')).toBeNull();
      // Deleting the extract leaves the copy's body: the re-extraction references it.
      expect(await archive.deleteJob(user, 'ext')).toEqual({ pages: 1, bodies: 0 });
      expect(await archive.deleteJob(user, 'rex')).toEqual({ pages: 1, bodies: 1 });
      expect(await archive.usage(user)).toEqual({ stored_bytes: 0, blobs: 0 });
    });

    it('retention removes expired pages and the bodies only they referenced', async () => {
      const user = tenant();
      const short = archiveWith({ ttlDays: 1 });
      await short.keep(user, 'ret', 'k1', capture(html('expiring')));
      await short.keep(user, 'ret', 'k2', capture(html('expiring too')));
      expect(await short.sweep(new Date(Date.now() + DAY / 2))).toEqual({ pages: 0, bodies: 0 });
      const swept = await short.sweep(new Date(Date.now() + DAY + 60_000), 10_000);
      expect(swept.pages).toBeGreaterThanOrEqual(2);
      expect(await short.load(user, 'ret', 'k1')).toBeNull();
      expect(await short.usage(user)).toEqual({ stored_bytes: 0, blobs: 0 });
    });

    it('refuses new pages of a tenant over its size cap, and only that tenant', async () => {
      const user = tenant();
      const capped = archiveWith({ maxBytesPerTenant: 1 });
      expect(await capped.keep(user, 'cap', 'k1', capture(html('first')))).toBe('stored');
      expect(await capped.keep(user, 'cap', 'k2', capture(html('second')))).toBe('refused_cap');
      expect(await capped.record(user, 'cap', 'k2')).toBeNull();
      expect(await capped.keep(tenant(), 'cap', 'k2', capture(html('second')))).toBe('stored');
    });

    it("another process's bodies count toward the cap within USAGE_FRESH_MS; this process's own at once", async () => {
      const user = tenant();
      await archive.keep(user, 'shared', 'a', capture(html('mine')));
      const mine = (await archive.usage(user)).stored_bytes;
      const here = archiveWith({ maxBytesPerTenant: mine + 1 });
      const there = archiveWith({ maxBytesPerTenant: 0 });
      const now = Date.now();
      const clock = jest.spyOn(Date, 'now').mockReturnValue(now);
      try {
        expect(await here.keep(user, 'shared', 'b', capture(html('mine')))).toBe('deduplicated'); // usage read: under the cap
        expect(await there.keep(user, 'shared', 'c', capture(html('theirs')))).toBe('stored'); // now over it
        await there.flushUsage(); // what its own timer does within USAGE_FLUSH_MS
        expect(await here.keep(user, 'shared', 'd', capture(html('mine')))).toBe('deduplicated'); // not seen yet
        clock.mockReturnValue(now + USAGE_FRESH_MS);
        expect(await here.keep(user, 'shared', 'e', capture(html('mine')))).toBe('refused_cap');
      } finally {
        clock.mockRestore();
      }
    });

    it('keeps nothing when archiving is off (TTL 0)', async () => {
      const user = tenant();
      expect(await archiveWith({ ttlDays: 0 }).keep(user, 'off', 'k', capture('x'))).toBe('disabled');
      expect(await archive.record(user, 'off', 'k')).toBeNull();
    });

    it('deleting a tenant removes all it had', async () => {
      const user = tenant();
      for (let i = 0; i < 5; i++) await archive.keep(user, `t${i % 2}`, `k${i}`, capture(html(`tenant ${i}`)));
      const other = tenant();
      await archive.keep(other, 'o0', 'k0', capture(html('tenant 0')));
      expect(await archive.deleteTenant(user)).toEqual({ pages: 5, bodies: 5 });
      expect(await archive.usage(user)).toEqual({ stored_bytes: 0, blobs: 0 });
      expect(await archive.load(other, 'o0', 'k0')).not.toBeNull();
    });

    it('a record of an unreadable WARC record carries its failure', async () => {
      const user = tenant();
      await archive.keepFailure(user, 'warc', 'k', 'https://warc.test/x', { category: 'invalid_request', message: 'WARC record 3: bad' });
      const page = await archive.load(user, 'warc', 'k');
      expect(page?.record.failure).toEqual({ category: 'invalid_request', message: 'WARC record 3: bad' });
      await archive.deleteJob(user, 'warc');
      expect(await archive.record(user, 'warc', 'k')).toBeNull();
    });

    it("finds the tenant's newest usable copy of a URL, within an age when given, never another tenant's", async () => {
      const user = tenant();
      const other = tenant();
      const at = (ms: number) => new Date(Date.now() - ms).toISOString();
      const url = 'https://shop.test/p/latest';
      await archive.keep(user, 'old', 'k', capture(html('old'), { url, fetchedAt: at(3 * DAY) }));
      await archive.keep(user, 'new', 'k', capture(html('new'), { url, fetchedAt: at(DAY) }));
      await archive.keep(user, 'gone', 'k', capture(html('gone'), { url, status: 404, fetchedAt: at(1000) }));
      await archive.keepFailure(user, 'warc', 'k', url, { category: 'invalid_request', message: 'unreadable' });
      await archive.keep(other, 'theirs', 'k', capture(html('theirs'), { url, fetchedAt: at(10) }));
      expect((await archive.latest(user, [url]))?.job_id).toBe('new');
      expect((await archive.latest(user, ['https://other.test/', url], at(2 * DAY)))?.job_id).toBe('new');
      expect(await archive.latest(user, [url], at(DAY / 2))).toBeNull();
      expect(await archive.latest(tenant(), [url])).toBeNull();
      expect((await archive.latest(other, [url]))?.job_id).toBe('theirs');
    });

    it('concurrent first references of one body store it once and count it once', async () => {
      const user = tenant();
      const body = html('concurrent');
      await Promise.all(Array.from({ length: 12 }, (_, i) => archive.keep(user, 'cc', `k${i}`, capture(body))));
      expect((await archive.usage(user)).blobs).toBe(1);
      for (let i = 0; i < 12; i++) expect((await archive.load(user, 'cc', `k${i}`))?.body.equals(Buffer.from(body, 'latin1'))).toBe(true);
    });

    it('concurrent first references in one process compress and write the body once', async () => {
      const user = tenant();
      const body = html('one-writer');
      const writes: string[] = [];
      const counted = new PageArchive(
        repository,
        blobsWith((id, data) => (writes.push(id), parts.blobs.write(id, data))),
        { ttlDays: 30, maxBytesPerTenant: 0, maxBodyBytes: 10 * 1024 * 1024, inlineMaxBytes: 0 },
      );
      const kept = await Promise.all(Array.from({ length: 12 }, (_, i) => counted.keep(user, 'one', `k${i}`, capture(body))));
      expect(writes).toHaveLength(1);
      expect(kept.filter((k) => k === 'stored')).toHaveLength(1);
      expect(kept.filter((k) => k === 'deduplicated')).toHaveLength(11);
      expect(await counted.usage(user)).toEqual({ stored_bytes: expect.any(Number), blobs: 1 });
      for (let i = 0; i < 12; i++) expect((await counted.load(user, 'one', `k${i}`))?.body.equals(Buffer.from(body, 'latin1'))).toBe(true);
    });

    it('when the first reference fails to write the body, the ones waiting on it store it themselves', async () => {
      const user = tenant();
      const body = html('first-fails');
      let failed = 0;
      const flaky = new PageArchive(
        repository,
        blobsWith((id, data) => (failed++ === 0 ? Promise.reject(new Error('disk hiccup')) : parts.blobs.write(id, data))),
        { ttlDays: 30, maxBytesPerTenant: 0, maxBodyBytes: 10 * 1024 * 1024, inlineMaxBytes: 0 },
      );
      const kept = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => flaky.keep(user, 'ff', `k${i}`, capture(body))));
      expect(kept.filter((k) => k.status === 'rejected')).toHaveLength(1);
      expect(kept.some((k) => k.status === 'fulfilled' && k.value === 'stored')).toBe(true);
      expect((await flaky.usage(user)).blobs).toBe(1);
      for (const [i, k] of kept.entries()) {
        if (k.status === 'fulfilled') expect((await flaky.load(user, 'ff', `k${i}`))?.body.equals(Buffer.from(body, 'latin1'))).toBe(true);
      }
    });

    it.each([
      ['inline', {}],
      ['in the blob store', { inlineMaxBytes: 0 }],
    ])('a body is never deleted under a page that references it, whatever runs at once (%s)', async (_, settings) => {
      const user = tenant();
      const body = html('race');
      // The keeper and the deleter are two processes: the keeper's memory of stored bodies does not see the deletes.
      const keeper = archiveWith(settings);
      const deleter = archiveWith(settings);
      for (let round = 0; round < 15; round++) {
        await keeper.keep(user, `old${round}`, 'k', capture(body));
        await Promise.all([deleter.deleteJob(user, `old${round}`), keeper.keep(user, `new${round}`, 'k', capture(body))]);
        const page = await deleter.load(user, `new${round}`, 'k');
        expect(page?.body.equals(Buffer.from(body, 'latin1'))).toBe(true);
        await deleter.deleteJob(user, `new${round}`);
      }
      await deleter.flushUsage();
      expect((await keeper.usage(user)).blobs).toBe(0);
    });

    describe('bodies inline (docs/archive.md "Where it is kept")', () => {
      it('a page with a new body, a deduplicated one and a known one are each ONE store write and no blob', async () => {
        const counting = countingStore(parts.store);
        const blobWrites: string[] = [];
        const here = new PageArchive(
          await ArchiveRepository.open(counting.store),
          blobsWith((id, data) => (blobWrites.push(id), parts.blobs.write(id, data))),
          { ttlDays: 30, maxBytesPerTenant: 0, maxBodyBytes: 10 * 1024 * 1024 },
        );
        const elsewhere = archiveWith();
        const user = tenant();
        counting.writes.length = 0;
        expect(await here.keep(user, 'j', 'new', capture(html('inline new')))).toBe('stored');
        expect(counting.writes).toEqual(['upsertMany archive_pages']);
        // Stored by another process: this one compresses it, finds it there, and counts nothing.
        await elsewhere.keep(user, 'j', 'theirs', capture(html('stored elsewhere')));
        counting.writes.length = 0;
        expect(await here.keep(user, 'j', 'dedup', capture(html('stored elsewhere')))).toBe('deduplicated');
        // Known to this process: only touched.
        expect(await here.keep(user, 'j', 'known', capture(html('inline new')))).toBe('deduplicated');
        expect(counting.writes).toEqual(['upsertMany archive_pages', 'upsertMany archive_pages']);
        expect(blobWrites).toEqual([]);
        // The usage of new bodies is written once per tenant and second, not with each page.
        await elsewhere.flushUsage();
        expect(await here.usage(user)).toEqual({ stored_bytes: expect.any(Number), blobs: 2 });
        expect(counting.writes.filter((w) => w.endsWith('archive_usage'))).toHaveLength(1);
        for (const key of ['new', 'dedup', 'known']) expect(await here.load(user, 'j', key)).not.toBeNull();
      });

      it('pages kept at the same time share ONE store write; a body they share is created once (issue 37)', async () => {
        const counting = countingStore(parts.store);
        const here = new PageArchive(await ArchiveRepository.open(counting.store), parts.blobs, {
          ttlDays: 30,
          maxBytesPerTenant: 0,
          maxBodyBytes: 10 * 1024 * 1024,
        });
        const user = tenant();
        const body = html('kept at once');
        // Page records are `<job>:<key>`: a job id of this test only (job ids are unique).
        const job = `batch_${newId()}`;
        counting.writes.length = 0;
        const kept = await Promise.all(Array.from({ length: 8 }, (_, i) => here.keep(user, job, `k${i}`, capture(body))));
        expect(counting.writes).toEqual(['upsertMany archive_pages']);
        expect(kept.filter((k) => k === 'stored')).toHaveLength(1);
        await here.flushUsage();
        expect(await here.usage(user)).toEqual({ stored_bytes: expect.any(Number), blobs: 1 });
        for (let i = 0; i < 8; i++) expect((await here.load(user, job, `k${i}`))?.body.equals(Buffer.from(body, 'latin1'))).toBe(true);
      });

      it('a known body deleted meanwhile, touched in a batch with others: the batch creates again what it only touched', async () => {
        const counting = countingStore(parts.store);
        const keeper = new PageArchive(await ArchiveRepository.open(counting.store), parts.blobs, {
          ttlDays: 30,
          maxBytesPerTenant: 0,
          maxBodyBytes: 10 * 1024 * 1024,
        });
        const deleter = archiveWith();
        const user = tenant();
        const [gone, stays, fresh] = ['gone', 'stays', 'fresh'].map((name) => `${name}_${newId()}`);
        await keeper.keep(user, gone, 'k', capture(html('deleted meanwhile')));
        await keeper.keep(user, stays, 'k', capture(html('still there')));
        expect(await deleter.deleteJob(user, gone)).toEqual({ pages: 1, bodies: 1 });
        counting.writes.length = 0;
        // Both known to the keeper: only touched, in one command; one finds nothing, so both are written again with their bytes.
        const kept = await Promise.all([
          keeper.keep(user, fresh, 'a', capture(html('deleted meanwhile'))),
          keeper.keep(user, fresh, 'b', capture(html('still there'))),
        ]);
        expect(counting.writes).toEqual(['upsertMany archive_pages', 'upsertMany archive_pages']);
        expect(kept).toEqual(['stored', 'deduplicated']);
        expect((await deleter.load(user, fresh, 'a'))?.body.toString('latin1')).toBe(html('deleted meanwhile'));
        expect((await deleter.load(user, fresh, 'b'))?.body.toString('latin1')).toBe(html('still there'));
        await keeper.flushUsage();
        await deleter.flushUsage();
        expect((await keeper.usage(user)).blobs).toBe(2);
      });

      it('a body above the inline size goes to the blob store; both read back alike', async () => {
        const user = tenant();
        const blobWrites: string[] = [];
        const small = new PageArchive(
          repository,
          blobsWith((id, data) => (blobWrites.push(id), parts.blobs.write(id, data))),
          {
            ttlDays: 30,
            maxBytesPerTenant: 0,
            maxBodyBytes: 10 * 1024 * 1024,
            inlineMaxBytes: 64,
          },
        );
        expect(await small.keep(user, 'j', 'big', capture(html('too big for 64 bytes')))).toBe('stored');
        expect(await small.keep(user, 'j', 'tiny', capture('<p>x</p>'))).toBe('stored');
        expect(blobWrites).toHaveLength(1);
        expect((await small.load(user, 'j', 'big'))?.body.toString('latin1')).toBe(html('too big for 64 bytes'));
        expect((await small.load(user, 'j', 'tiny'))?.body.toString('latin1')).toBe('<p>x</p>');
        expect(await small.keep(user, 'j2', 'big', capture(html('too big for 64 bytes')))).toBe('deduplicated');
        expect(blobWrites).toHaveLength(1);
        expect(await small.deleteJob(user, 'j')).toEqual({ pages: 2, bodies: 1 });
        expect(await small.deleteJob(user, 'j2')).toEqual({ pages: 1, bodies: 1 });
        expect(await parts.blobs.read(blobWrites[0])).toBeNull();
        expect(await small.usage(user)).toEqual({ stored_bytes: 0, blobs: 0 });
      });
    });

    describe('bodies stored before issue 37 (archive_blobs records, bytes in the blob store)', () => {
      /** A page kept the old way: its record, its body's archive_blobs record and the bytes in the blob store. */
      async function keptTheOldWay(user: string, jobId: string, key: string, body: string): Promise<string> {
        const data = Buffer.from(body, 'latin1');
        const sha = createHash('sha256').update(data).digest('hex');
        const encoded = brotliCompressSync(data);
        const blobId = newId();
        await parts.blobs.write(blobId, encoded);
        const now = new Date().toISOString();
        const blobs = await parts.store.collection({ name: 'archive_blobs', indexes: [] });
        await blobs.findOneAndUpdate(
          { _id: `${user}:${sha}` },
          {
            $set: { touch: newId(), touched_at: now },
            $setOnInsert: {
              user_id: user,
              sha256: sha,
              blob_id: blobId,
              size: data.length,
              stored_size: encoded.length,
              encoding: 'br',
              stored: true,
              created_at: now,
            },
          },
          { upsert: true },
        );
        const pages = await parts.store.collection({ name: 'archive_pages', indexes: [] });
        await pages.insertOne({
          _id: `${jobId}:${key}`,
          job_id: jobId,
          user_id: user,
          key,
          url: `https://old.test/${key}`,
          final_url: `https://old.test/${key}`,
          status: 200,
          headers: { 'content-type': 'text/html' },
          redirects: [],
          fetch_mode: 'static',
          content_type: 'text/html',
          charset: 'utf-8',
          body_sha256: sha,
          body_bytes: data.length,
          rendered_sha256: null,
          rendered_bytes: null,
          fetched_at: now,
          expires_at: new Date(Date.now() + 30 * DAY).toISOString(),
          origin: 'fetch',
          failure: null,
        });
        return blobId;
      }

      it('are read back, copied for a re-extraction, and deleted with the last page that references them', async () => {
        const user = tenant();
        const [old, rex, fresh] = ['old', 'rex', 'new'].map((name) => `${name}_${newId()}`);
        const blobId = await keptTheOldWay(user, old, 'k', html('old body'));
        expect((await archive.load(user, old, 'k'))?.body.toString('latin1')).toBe(html('old body'));
        expect(await archive.body(user, (await archive.record(user, old, 'k'))!.body_sha256)).not.toBeNull();
        // A re-extraction references the old body where it is.
        expect(await archive.copy(user, old, rex, 'k')).not.toBeNull();
        // A new page with the same body stores it the new way; the old record stays while old pages need it.
        expect(await archive.keep(user, fresh, 'k', capture(html('old body')))).toBe('stored');
        expect(await archive.deleteJob(user, old)).toEqual({ pages: 1, bodies: 0 });
        expect((await archive.load(user, rex, 'k'))?.body.toString('latin1')).toBe(html('old body'));
        expect(await archive.deleteJob(user, rex)).toEqual({ pages: 1, bodies: 0 });
        expect(await archive.deleteJob(user, fresh)).toEqual({ pages: 1, bodies: 2 });
        expect(await parts.blobs.read(blobId)).toBeNull();
      });

      it('go with a tenant deletion and with the retention', async () => {
        const user = tenant();
        const first = await keptTheOldWay(user, 'a', 'k1', html('erased'));
        await archive.keep(user, 'b', 'k2', capture(html('new way')));
        expect(await archive.deleteTenant(user)).toEqual({ pages: 2, bodies: 2 });
        expect(await parts.blobs.read(first)).toBeNull();
        expect(await archive.load(user, 'a', 'k1')).toBeNull();
        const later = tenant();
        const second = await keptTheOldWay(later, 'c', 'k', html('expires'));
        const swept = await archive.sweep(new Date(Date.now() + 31 * DAY), 100_000);
        expect(swept.bodies).toBeGreaterThanOrEqual(1);
        expect(await parts.blobs.read(second)).toBeNull();
        expect(await archive.load(later, 'c', 'k')).toBeNull();
      });
    });

    describe('blob store', () => {
      it('reads back what it wrote, whole and as a stream; missing blobs are null; delete is idempotent', async () => {
        const id = newId();
        const data = Buffer.alloc(600 * 1024, 7);
        await parts.blobs.write(id, data);
        expect((await parts.blobs.read(id))?.equals(data)).toBe(true);
        const chunks: Buffer[] = [];
        for await (const chunk of (await parts.blobs.readStream(id))!) chunks.push(chunk);
        expect(Buffer.concat(chunks).equals(data)).toBe(true);
        await parts.blobs.delete(id);
        await parts.blobs.delete(id);
        expect(await parts.blobs.read(id)).toBeNull();
        expect(await parts.blobs.readStream(id)).toBeNull();
      });

      it('a stream over its cap is refused and nothing of it is kept', async () => {
        const id = newId();
        async function* chunks() {
          for (let i = 0; i < 10; i++) yield Buffer.alloc(100_000, i);
        }
        await expect(parts.blobs.writeStream(id, chunks(), 350_000)).rejects.toBeInstanceOf(BlobTooLarge);
        expect(await parts.blobs.read(id)).toBeNull();
        expect(await parts.blobs.writeStream(id, chunks(), 1_000_000)).toBe(1_000_000);
        expect((await parts.blobs.read(id))?.length).toBe(1_000_000);
        await parts.blobs.delete(id);
      });

      it('refuses ids that could name a path', async () => {
        await expect(parts.blobs.write('../../etc/passwd', Buffer.from('x'))).rejects.toThrow(/invalid blob id/);
      });
    });
  });
}
