import { BUCKETS, differentRecords, recordValuesOf, VALUES_KEPT } from './record-values';

/** A product page of one template: its heading, item number, rating, price and a promo block. */
const product = (o: { item: string; rating: string; price: string; promo: string; extra?: string; heading?: string }) =>
  [
    `# ${o.heading ?? 'Roomba j7+ Self-Emptying Robot Vacuum'}`,
    'Home > Vacuums > Robot vacuums. [Cart (0)](https://shop.example/cart?sid=4f9a2c7e) Call 1-800-727-9077.',
    `Item ${o.item}. Rated ${o.rating} out of 5 (1,204 reviews). Price $${o.price}.`,
    `${o.promo}. Free shipping on orders over $49.`,
    'Our smartest, most advanced robot vacuum avoids pet waste and cords, empties itself for up to 60 days.',
    o.extra ?? '',
    'Footer: Contact Terms Privacy © 2024 Shop Inc.',
  ].join('\n\n');

const sku1 = { item: 'J755020', rating: '4.5', price: '599.99', promo: 'Save $200 until Sunday' };
const sku2 = { item: 'J755030', rating: '4.4', price: '599.99', promo: 'Save $150 with code J7PLUS' };

describe('record values (the record-value guard)', () => {
  it('two SKUs of one product page are different records, both ways', () => {
    const a = recordValuesOf(product(sku1));
    const b = recordValuesOf(product(sku2));
    expect(differentRecords(a, b)).toBe(true);
    expect(differentRecords(b, a)).toBe(true);
    // Only the item number replaced is enough.
    expect(differentRecords(a, recordValuesOf(product({ ...sku1, item: 'J755030' })))).toBe(true);
  });

  it('two records with the same values and other headings are different records', () => {
    const a = recordValuesOf(product(sku1));
    expect(differentRecords(a, recordValuesOf(product({ ...sku1, heading: 'Roomba i7+ Robot Vacuum' })))).toBe(true);
  });

  it('a changed timestamp is the same record: ISO dates, clock times, relative times, dates with month names', () => {
    const a = recordValuesOf(product({ ...sku1, extra: 'Updated 2026-12-01T10:00:00Z, 3 hours ago. Posted December 1, 2026 at 9:14 am.' }));
    const b = recordValuesOf(product({ ...sku1, extra: 'Updated 2026-12-02T07:15:00Z, 2 days ago. Posted 2 Dec 2026 at 17:02.' }));
    expect(differentRecords(a, b)).toBe(false);
    expect(differentRecords(a, recordValuesOf(product({ ...sku1, extra: 'Updated 02/12/2026. © 2019-2026.' })))).toBe(false);
  });

  it('a print view (navigation and footer gone) and a parameter variant (other link targets) are the same record', () => {
    const page = product(sku1);
    const a = recordValuesOf(page);
    const print = page.replace(/^Home >.*$/m, '').replace(/^Footer:.*$/m, '');
    expect(differentRecords(a, recordValuesOf(print))).toBe(false);
    const variant = page.replace('sid=4f9a2c7e', 'sid=99d0e1b3&utm_source=mail');
    expect(recordValuesOf(variant)).toBe(a);
    // An added session line with an opaque id adds no value.
    expect(recordValuesOf(page.replace('\n\n', '\n\nLast updated 2026-12-02 07:00 UTC. Session 8f3a9c.\n\n'))).toBe(a);
    // A value only added (or only removed) is not a replaced one.
    expect(differentRecords(a, recordValuesOf(`${page}\n\nBundle saves 12 %.`))).toBe(false);
  });

  it('pages with more values than it keeps compare the values it kept; a record stored before the guard is not guarded', () => {
    const table = (shift: number) => Array.from({ length: VALUES_KEPT * 2 }, (_, i) => `row ${i + shift}`).join('\n');
    const a = recordValuesOf(table(0));
    expect(a).toContain('|+');
    expect(a.length).toBeLessThanOrEqual(8 * VALUES_KEPT + 2 + 2 + 6 * BUCKETS);
    expect(differentRecords(a, recordValuesOf(table(0)))).toBe(false);
    // Half the values replaced: some replaced value is among the kept ones.
    expect(differentRecords(a, recordValuesOf(table(VALUES_KEPT)))).toBe(true);
    expect(differentRecords(a, undefined)).toBe(false);
  });

  describe('each occurrence of a value is a value (a value shown twice and changed once is replaced)', () => {
    /** nginx's beginners guide: one process id shown twice. */
    const guide = (first: string, second: string) =>
      [
        '# Beginner’s Guide',
        `If the master process ID is ${first}, the command is:`,
        `    kill -s QUIT ${second}`,
        'Worker processes wait for 5 connections on port 8080.',
      ].join('\n\n');

    it('one of two occurrences changed is a different record, both ways', () => {
      const a = recordValuesOf(guide('1628', '1628'));
      for (const b of [recordValuesOf(guide('1629', '1628')), recordValuesOf(guide('1628', '1629'))]) {
        expect(differentRecords(a, b)).toBe(true);
        expect(differentRecords(b, a)).toBe(true);
      }
    });

    it('occurrences only added or only removed are the same record: a print view, a repeated footer', () => {
      const page = product(sku1);
      const a = recordValuesOf(page);
      const footerTwice = `${page}\n\nCall 1-800-727-9077. Free shipping on orders over $49.`;
      expect(differentRecords(a, recordValuesOf(footerTwice))).toBe(false);
      expect(differentRecords(recordValuesOf(footerTwice), a)).toBe(false);
      // The print view of the guide drops the command block: one occurrence of the id gone.
      const guideValues = recordValuesOf(guide('1628', '1628'));
      const print = recordValuesOf(guide('1628', '1628').replace(/^ {4}kill.*$/m, ''));
      expect(differentRecords(guideValues, print)).toBe(false);
      expect(differentRecords(print, guideValues)).toBe(false);
    });

    it("a short number's occurrences moving with the furniture are the same record (a heading's 50 gone, a cart's 0 added)", () => {
      const review = (header: string) =>
        [header, 'Cart (0)', 'Earbuds below 50 bucks, rated 0 to 10.', 'The T4 costs less than 50 bucks: 3,299 reviews.'].join('\n\n');
      const a = recordValuesOf(review('# Best earbuds below $50'));
      const b = recordValuesOf(review('Sign in. 0 Cart'));
      expect(differentRecords(a, b)).toBe(false);
      expect(differentRecords(b, a)).toBe(false);
    });

    it('a record written before (each value once) holds a subset, and compares as it did', () => {
      // What the guard wrote before for the guide: 1628 once (the same as the guide with the id shown once).
      const before = recordValuesOf(guide('1628', 'the same id'));
      expect(differentRecords(before, recordValuesOf(guide('1628', '1628')))).toBe(false);
      // As before, against a copy that shows 1628 and 1629: a value added, not one replaced.
      expect(differentRecords(before, recordValuesOf(guide('1629', '1628')))).toBe(false);
      expect(differentRecords(recordValuesOf(guide('1629', '1628')), before)).toBe(false);
    });
  });

  describe('opaque ids (set aside) and codes that look like hex (values)', () => {
    /** A product-feed specification's example rows. */
    const feed = (unique: string, group: string) =>
      [
        '# Product feed specification',
        '| Column | Example |',
        '| --- | --- |',
        `| Unique identifier | ${unique} |`,
        `| Group identifier | ${group} |`,
        '| Price | 19.99 |',
      ].join('\n');

    it('a hex-looking code written in upper case, changed, is a different record, both ways', () => {
      const a = recordValuesOf(feed('79002A33_RD', '79002A33'));
      const b = recordValuesOf(feed('79012A33_RD', '79002A33'));
      expect(differentRecords(a, b)).toBe(true);
      expect(differentRecords(b, a)).toBe(true);
      const c = recordValuesOf(feed('SKU 7FA0B2C9', '-'));
      expect(differentRecords(c, recordValuesOf(feed('SKU 7FA0B2D9', '-')))).toBe(true);
    });

    it('a lower-case hex code joined by _ to a suffix is a value, escaped in markdown or not', () => {
      for (const joiner of ['_', '\\_']) {
        const a = recordValuesOf(feed(`79002a33${joiner}rd`, '-'));
        const b = recordValuesOf(feed(`79012a33${joiner}rd`, '-'));
        expect(differentRecords(a, b)).toBe(true);
        expect(differentRecords(b, a)).toBe(true);
      }
    });

    it('lower-case hex (sessions, hashes, UUIDs) stays opaque', () => {
      const a = recordValuesOf(feed('79002A33_RD', '79002A33'));
      const withSession = (id: string) => `${feed('79002A33_RD', '79002A33')}\n\nSession ${id}. Build 3f9a2c7e1b.`;
      expect(recordValuesOf(withSession('8f3a9c'))).toBe(a);
      expect(recordValuesOf(withSession('550e8400-e29b-41d4-a716-446655440000'))).toBe(a);
      // Mixed case is not a code written in upper case: opaque too.
      expect(recordValuesOf(withSession('8F3a9C'))).toBe(a);
      // Two fetches with other session ids: the same record.
      expect(differentRecords(recordValuesOf(withSession('8f3a9c')), recordValuesOf(withSession('99d0e1')))).toBe(false);
    });

    it('a session line added, its id in upper case or not, is the same record (a value added at most)', () => {
      const page = product(sku1);
      const a = recordValuesOf(page);
      for (const id of ['8f3a9c', '8F3A9C']) {
        const withLine = recordValuesOf(page.replace('\n\n', `\n\nLast updated 2026-12-02 07:00 UTC. Session ${id}.\n\n`));
        expect(differentRecords(a, withLine)).toBe(false);
        expect(differentRecords(withLine, a)).toBe(false);
      }
    });
  });

  describe('a page with more values than the sketch keeps (the digest, format 2)', () => {
    const rows = Array.from({ length: VALUES_KEPT * 2 }, (_, i) => `row ${i}`);
    const page = rows.join('\n');
    const a = recordValuesOf(page);
    /** The same record as one written before the digest (format 1): the sketch alone. */
    const formatOne = (values: string) => values.replace(/\|2[0-9a-f]*$/, '');
    const different = (x: string, y: string) => {
      const one = differentRecords(x, y);
      expect(differentRecords(y, x)).toBe(one); // symmetric
      return one;
    };

    it('keeps its size bounded: the sketch and 64 buckets', () => {
      expect(a).toMatch(/\|\+[0-9a-f]{2048}\|2[0-9a-f]{384}$/);
      expect(formatOne(a)).not.toBe(a);
    });

    /** Every fourth row: the rows each test changes one at a time (all 512 take seconds on a loaded machine). */
    const sampled = rows.map((_, i) => i).filter((i) => i % 4 === 0);

    it('sees a value replaced anywhere on the page, also where the sketch does not reach', () => {
      let missedBySketch = 0;
      for (const i of sampled) {
        const b = recordValuesOf(rows.map((row, j) => (j === i ? `row ${100000 + i}` : row)).join('\n'));
        expect(different(a, b)).toBe(true);
        if (!different(formatOne(a), formatOne(b))) missedBySketch++;
      }
      // Most replaced values hash above the sketch's cut-off: format 1 misses them (as before), format 2 does not.
      expect(missedBySketch).toBeGreaterThan(sampled.length / 2);
    });

    it('sees one occurrence of a value shown twice changed, and takes an occurrence only added for the same record', () => {
      const twice = recordValuesOf(`${page}\nrow 107`);
      expect(different(a, twice)).toBe(false);
      expect(different(twice, recordValuesOf(`${page}\nrow 100107`))).toBe(true);
    });

    it('takes a value only added or only removed for the same record', () => {
      for (const i of sampled) {
        const removed = recordValuesOf(rows.filter((__, j) => j !== i).join('\n'));
        expect(different(a, removed)).toBe(false);
        const added = recordValuesOf(`${page}\nrow ${100000 + i}`);
        expect(different(a, added)).toBe(false);
      }
      // Many added (a table grown by a page of rows) is still no replaced value.
      expect(different(a, recordValuesOf(`${page}\n${rows.map((_, i) => `row ${5000 + i}`).join('\n')}`))).toBe(false);
    });

    it('compares records written before the digest (format 1) by their sketch, as before', () => {
      const replaced = recordValuesOf(rows.map((row, j) => (j === 0 ? 'row 100000' : row)).join('\n'));
      const sketchOnly = different(formatOne(a), formatOne(replaced));
      // One record of each format: the sketch decides, as between two records of format 1.
      expect(different(formatOne(a), replaced)).toBe(sketchOnly);
      expect(different(a, formatOne(replaced))).toBe(sketchOnly);
      expect(different(formatOne(a), formatOne(recordValuesOf(page)))).toBe(false);
    });
  });
});
