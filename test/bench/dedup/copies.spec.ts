import { fingerprintOf } from '../../../libs/dedup/src/fingerprint';
import { recordValuesOf } from '../../../libs/dedup/src/record-values';
import { changesShownValue, CopyTally, variantsOf, type Variant } from './copies';

const PROSE = Array.from({ length: 12 }, (_, i) => `Paragraph ${String.fromCharCode(97 + i)} tells how the lamp is made and kept.`).join(
  ' ',
);

/** The page as the tally takes it, its text standing for its markdown. */
function original(text: string) {
  return { url: 'https://shop.example/lamp', fp: fingerprintOf(text) as string, values: recordValuesOf(text), text };
}

const dateVariant = (html: string): Variant => variantsOf(html)[0];

describe("bench:dedup's generated copies", () => {
  it('make three variants of a page: the first four digits plus one, a session line, no navigation', () => {
    const html = '<html><body><nav><a href="/">Home</a></nav><p>Updated 2019. PO Box 1214.</p></body></html>';
    const [date, session, bare] = variantsOf(html);
    expect(date).toEqual({ kind: 'date', html: html.replace('2019', '2020'), changed: { from: '2019', to: '2020' } });
    expect(session.html).toContain('<body><p>Last updated 2026-12-02 07:00 UTC. Session 8f3a9c.</p>');
    expect(bare.html).not.toContain('<nav>');
  });

  it('take a changed shown number that is not a year for a changed value, and a year or an unshown digit run for a date', () => {
    const po = dateVariant('<p>PO Box 1214</p>');
    expect(changesShownValue(po, 'PO Box 1214', 'PO Box 1215')).toBe(true);
    const year = dateVariant('<p>Posted 2019</p>');
    expect(changesShownValue(year, 'Posted 2019', 'Posted 2020')).toBe(false);
    // An HTML entity's code (&#8217; → &#8218;): the text shows another quote mark, no number.
    const entity = dateVariant('<p>you&#8217;re away</p>');
    expect(changesShownValue(entity, 'you’re away', 'you‚re away')).toBe(false);
    // The first of two occurrences changed: the new number is shown once more than before.
    const twice = dateVariant('<p>pid 1628</p><p>kill 1628</p>');
    expect(changesShownValue(twice, 'pid 1628 kill 1628', 'pid 1629 kill 1628')).toBe(true);
    expect(changesShownValue(variantsOf('<p>Session line 1214</p>')[1], 'x', 'x 1214')).toBe(false);
  });

  it('count a copy found, a copy missed, and a changed value apart from both', () => {
    const tally = new CopyTally();
    const page = `${PROSE} Price 1214 dollars.`;
    const page2 = `${PROSE} Price 3300 dollars.`;
    tally.add(original(page), variantsOf('<p>Last updated 2019</p>')[0], page.replace('Paragraph a', 'Paragraph a.'));
    tally.add(original(page), variantsOf('<body><p>x</p></body>')[1], 'Too short to fingerprint.');
    // A changed price: alike by the fingerprint, another record by the guard (each has a value the other lacks).
    tally.add(original(page2), dateVariant('<p>Price 3300</p>'), page2.replace('3300', '3301'));
    const report = tally.report();
    expect(report).toMatchObject({
      variants: 2,
      found: 1,
      detection_rate: 0.5,
      missed_by_kind: { date: 0, session_line: 1, no_navigation: 0 },
      value_changed: { variants: 1, kept_apart_by_fingerprint: 0, kept_apart_by_guard: 1, merged: [], false_merges: 0 },
    });
    expect(tally.similarities).toHaveLength(2);
  });

  it('list a changed value the index would merge as a false merge of a generated pair', () => {
    const tally = new CopyTally();
    // One of two occurrences changed (1628 is still shown once): the guard sees the second occurrence replaced.
    const twice = `${PROSE} Process 1628 and again 1628.`;
    tally.add(original(twice), dateVariant('<p>1628</p>'), twice.replace('1628', '1629'));
    // Digits changed inside a lower-case hex run: set aside as an opaque id (a session id, a hash), so no value differs.
    const hex = `${PROSE} Build a1628f of the lamp.`;
    tally.add({ ...original(hex), url: 'https://shop.example/build' }, dateVariant('<p>a1628f</p>'), hex.replace('1628', '1629'));
    expect(tally.report().value_changed).toEqual({
      variants: 2,
      kept_apart_by_fingerprint: 0,
      kept_apart_by_guard: 1,
      merged: ['https://shop.example/build'],
      false_merges: 1,
    });
  });
});
