import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteDocumentStore } from '@app/storage';
import { DuplicateIndex } from './duplicate-index';
import { fingerprintOf, NEAR_SIMILARITY, similarity } from './fingerprint';

const body = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ');
const other = Array.from({ length: 200 }, (_, i) => `other${i}`).join(' ');
const J1 = { id: 'j1', userId: 'u1' };
const J2 = { id: 'j2', userId: 'u2' };

describe('DuplicateIndex (on the embedded store)', () => {
  let dir: string;
  let store: SqliteDocumentStore;
  let index: DuplicateIndex;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gleaner-dedup-'));
    store = SqliteDocumentStore.open({ file: join(dir, 'store.db') });
    index = new DuplicateIndex(store);
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exact: the first page with a text is the original, a later one its copy; a page run again keeps its verdict', async () => {
    expect(await index.check(J1, { key: 'a', url: 'https://s.example/a', text: body }, 'exact')).toBeNull();
    expect(await index.check(J1, { key: 'b', url: 'https://s.example/b', text: `  ${body}\n` }, 'exact')).toEqual({
      original: { key: 'a', url: 'https://s.example/a' },
      reason: 'exact',
      similarity: 1,
    });
    expect(await index.check(J1, { key: 'a', url: 'https://s.example/a', text: body }, 'exact')).toBeNull();
    expect(await index.check(J1, { key: 'c', url: 'https://s.example/c', text: other }, 'exact')).toBeNull();
    // Another job's pages are not compared.
    expect(await index.check(J2, { key: 'b', url: 'https://s.example/b', text: body }, 'exact')).toBeNull();
  });

  it('exact: of two pages with one text checked at once, exactly one is the original', async () => {
    const verdicts = await Promise.all(
      ['a', 'b', 'c', 'd'].map((key) => index.check(J1, { key, url: `https://s.example/${key}`, text: body }, 'exact')),
    );
    expect(verdicts.filter((v) => v === null)).toHaveLength(1);
    const original = ['a', 'b', 'c', 'd'][verdicts.indexOf(null)];
    for (const v of verdicts) if (v) expect(v.original.key).toBe(original);
  });

  it('near: a near-duplicate names its original and the similarity; its verdict stands when it is run again', async () => {
    expect(await index.check(J1, { key: 'a', url: 'https://s.example/a', text: `${body} updated 2026-12-01` }, 'near')).toBeNull();
    const verdict = await index.check(
      J1,
      { key: 'b', url: 'https://s.example/b?utm_source=x', text: `${body} updated 2026-12-02` },
      'near',
    );
    expect(verdict).toMatchObject({ original: { key: 'a' }, reason: 'near' });
    expect(verdict!.similarity).toBeGreaterThanOrEqual(0.85);
    expect(verdict!.similarity).toBeLessThanOrEqual(1);
    // Run again (another process, after a takeover): the same text, the same original.
    expect(
      await new DuplicateIndex(store).check(J1, { key: 'b', url: 'https://s.example/b', text: `${body} updated 2026-12-02` }, 'near'),
    ).toEqual(verdict);
    // And the original stays one, whatever its text now.
    expect(await new DuplicateIndex(store).check(J1, { key: 'a', url: 'https://s.example/a', text: `${body} changed` }, 'near')).toBeNull();
    // A copy of a copy names the original: only originals are in the index.
    expect(await index.check(J1, { key: 'c', url: 'https://s.example/c', text: `${body} updated 2026-12-02` }, 'near')).toMatchObject({
      original: { key: 'a' },
    });
    expect(await index.check(J1, { key: 'd', url: 'https://s.example/d', text: other }, 'near')).toBeNull();
  });

  it('near: of near-duplicates checked at once, the lowest key is the original and the others its copies, whatever the order', async () => {
    const text = (day: number) => `${body} updated 2026-12-0${day}`;
    for (const order of [
      ['a', 'b', 'c'],
      ['c', 'b', 'a'],
    ]) {
      const job = { id: `j-${order.join('')}`, userId: 'u1' };
      const verdicts = await Promise.all(
        order.map((key, i) => index.check(job, { key, url: `https://s.example/${key}`, text: text(i + 1) }, 'near')),
      );
      expect(verdicts.filter((v) => v === null)).toHaveLength(1);
      const original = order[verdicts.indexOf(null)];
      expect(original).toBe('a');
      for (const v of verdicts) if (v) expect(v).toMatchObject({ original: { key: original }, reason: 'near' });
      // A later copy names it, in this process and in another.
      for (const checker of [index, new DuplicateIndex(store)]) {
        expect(await checker.check(job, { key: 'd', url: 'https://s.example/d', text: text(9) }, 'near')).toMatchObject({
          original: { key: original },
        });
      }
    }
  });

  it('near: two SKUs of one product page are not merged (the record-value guard); a print view, a parameter variant and a changed timestamp are', async () => {
    const sku = (item: string, rating: string, promo: string, stamp = '2026-12-01 10:00') =>
      [
        '# Roomba j7+ Self-Emptying Robot Vacuum',
        'Home > Vacuums > Robot vacuums. [Cart (0)](https://shop.example/cart) Call 1-800-727-9077.',
        `Item ${item}. Rated ${rating} out of 5. Price $599.99. ${promo}.`,
        body,
        `Prices checked ${stamp}.`,
        'Footer: Contact Terms Privacy.',
      ].join('\n\n');
    const a = sku('J755020', '4.5', 'Save $200 until Sunday');
    const b = sku('J755030', '4.4', 'Save $150 with code J7PLUS');
    // The fingerprint alone takes them for copies: the guard is what keeps them apart.
    expect(similarity(fingerprintOf(a)!, fingerprintOf(b)!)).toBeGreaterThanOrEqual(NEAR_SIMILARITY);
    expect(await index.check(J1, { key: 'a', url: 'https://s.example/J755020.html', text: a }, 'near')).toBeNull();
    expect(await index.check(J1, { key: 'b', url: 'https://s.example/J755030.html', text: b }, 'near')).toBeNull();
    // Checked at once, in another process each: both stay originals, whichever order.
    for (const job of [J2, { id: 'j3', userId: 'u1' }]) {
      const pair = job === J2 ? [a, b] : [b, a];
      expect(
        await Promise.all(
          pair.map((text, i) => new DuplicateIndex(store).check(job, { key: `k${i}`, url: `https://s.example/${i}`, text }, 'near')),
        ),
      ).toEqual([null, null]);
    }
    const print = a.replace(/^Home >.*$/m, '').replace(/^Footer:.*$/m, '');
    const variant = a.replace('https://shop.example/cart', 'https://shop.example/cart?sid=4f9a2c7e&utm_source=mail');
    const later = sku('J755020', '4.5', 'Save $200 until Sunday', '2026-12-02 07:15');
    for (const [key, text] of [
      ['print', print],
      ['variant', variant],
      ['later', later],
    ]) {
      expect(await new DuplicateIndex(store).check(J1, { key, url: `https://s.example/${key}`, text }, 'near')).toMatchObject({
        original: { key: 'a' },
        reason: 'near',
      });
      expect(await index.check(J1, { key: `${key}-2`, url: `https://s.example/${key}-2`, text }, 'near')).toMatchObject({
        original: { key: 'a' },
      });
    }
  });

  it('forgets a job', async () => {
    await index.check(J1, { key: 'a', url: 'https://s.example/a', text: body }, 'near');
    await index.forget('j1');
    expect(await index.check(J1, { key: 'b', url: 'https://s.example/b', text: body }, 'near')).toBeNull();
  });

  it("forgets a tenant: every record of its jobs, and no other tenant's", async () => {
    await index.check(J1, { key: 'a', url: 'https://s.example/a', text: body }, 'near');
    await index.check(J1, { key: 'b', url: 'https://s.example/b', text: other }, 'exact');
    await index.check(J2, { key: 'a', url: 'https://s.example/a', text: body }, 'near');
    const docs = await store.collection<{ _id: string; user_id?: string }>({ name: 'crawl_duplicates', indexes: [] });
    const ofU1 = await docs.count({ user_id: 'u1' });
    expect(ofU1).toBe(2); // j1/a's record (near), j1/b's text hash (exact)
    expect(await index.forgetTenant('u1')).toBe(ofU1);
    expect(await docs.count({ user_id: 'u1' })).toBe(0);
    expect(await docs.count({ job_id: 'j1' })).toBe(0);
    // The other tenant's index still answers.
    expect(await index.check(J2, { key: 'c', url: 'https://s.example/c', text: body }, 'near')).toMatchObject({ original: { key: 'a' } });
  });
});
