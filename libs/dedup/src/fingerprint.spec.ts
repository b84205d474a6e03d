import { bandsOf, BANDS, fingerprintOf, MINHASH_SIZE, MIN_WORDS, NEAR_SIMILARITY, similarity, wordsOf } from './fingerprint';

/** A page of `n` distinct words after a fixed boilerplate, as a templated shop page would be. */
const page = (values: string, words = 120) =>
  `Home Shop Books Cart Sign in. ${Array.from({ length: words }, (_, i) => `w${i}`).join(' ')} ${values} Footer: about us, contact, terms.`;

describe('fingerprint (MinHash of word 3-shingles)', () => {
  it('is the same for the same words whatever their case, spacing and punctuation, and null for too little text', () => {
    const text = page('Price 12.99');
    expect(fingerprintOf(text)).toHaveLength(MINHASH_SIZE * 4);
    expect(fingerprintOf(text.toUpperCase().replace(/ /g, '\n  '))).toBe(fingerprintOf(text));
    expect(fingerprintOf('only a few words here')).toBeNull();
    expect(wordsOf('Ünïcode ｗｏｒｄｓ, 42!')).toEqual(['ünïcode', 'words', '42']);
    expect(MIN_WORDS).toBeGreaterThan(4);
  });

  it('finds a copy with a changed timestamp or an added line near, sharing a band', () => {
    const a = fingerprintOf(`${page('')} Updated 2026-12-01 10:00.`)!;
    const b = fingerprintOf(`${page('')} Updated 2026-12-02 07:15.`)!;
    const c = fingerprintOf(`Session id 8f3a9c. ${page('')} Updated 2026-12-01 10:00.`)!;
    expect(similarity(a, b)).toBeGreaterThanOrEqual(NEAR_SIMILARITY);
    expect(similarity(a, c)).toBeGreaterThanOrEqual(NEAR_SIMILARITY);
    expect(bandsOf(a).some((band) => bandsOf(b).includes(band))).toBe(true);
    expect(similarity(a, a)).toBe(1);
  });

  it('keeps pages of one template with different values apart', () => {
    const values = (n: number) => Array.from({ length: 60 }, (_, i) => `title${n}x${i} author${n}y${i}`).join(' ');
    const a = fingerprintOf(page(values(1), 40))!;
    const b = fingerprintOf(page(values(2), 40))!;
    expect(similarity(a, b)).toBeLessThan(NEAR_SIMILARITY);
  });

  it('bands the signature into BANDS keys that name their band', () => {
    const bands = bandsOf(fingerprintOf(page('x'))!);
    expect(bands).toHaveLength(BANDS);
    expect(bands.map((b) => b.split(':')[0])).toEqual(Array.from({ length: BANDS }, (_, i) => String(i)));
  });
});
