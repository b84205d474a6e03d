import { bandsOf, fingerprintOf } from './fingerprint';
import { KnownOriginals } from './known-originals';
import { textHash } from './text-hash';

const body = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');
const other = Array.from({ length: 150 }, (_, i) => `other${i}`).join(' ');

function page(key: string, text: string) {
  const fp = fingerprintOf(text);
  const hash = textHash(text);
  return {
    original: { key, url: `https://s.example/${key}`, hash, ...(fp ? { fp } : {}) },
    elements: [...(fp ? bandsOf(fp) : []), `h:${hash}`],
    fp,
    hash,
  };
}

describe('KnownOriginals', () => {
  it('finds the most alike original of the job (same text: exact), never the page itself nor another job', () => {
    const known = new KnownOriginals();
    const a = page('a', `${body} updated 2026-12-01`);
    known.add('j1', a.original, a.elements);
    const copy = page('b', `${body} updated 2026-12-02`);
    expect(known.nearest('j1', { key: 'b', ...copy }, copy.elements)).toMatchObject({ original: { key: 'a' }, exact: false });
    expect(known.nearest('j1', { key: 'c', ...a }, a.elements)).toMatchObject({ original: { key: 'a' }, similarity: 1, exact: true });
    expect(known.nearest('j1', { key: 'a', ...a }, a.elements)).toBeNull();
    expect(known.nearest('j2', { key: 'b', ...copy }, copy.elements)).toBeNull();
    const unlike = page('d', other);
    expect(known.nearest('j1', { key: 'd', ...unlike }, unlike.elements)).toBeNull();
    expect(known.has('j1', 'a')).toBe(true);
    expect(known.has('j1', 'b')).toBe(false);
  });

  it('of two as alike, names the lower key', () => {
    const known = new KnownOriginals();
    const z = page('z', body);
    const m = page('m', body);
    known.add('j1', z.original, z.elements);
    known.add('j1', m.original, m.elements);
    expect(known.nearest('j1', { key: 'q', ...z }, z.elements)?.original.key).toBe('m');
  });

  it('is bounded: past its size the job remembered longest ago is forgotten; forget drops a job', () => {
    const known = new KnownOriginals(3);
    const texts = ['one', 'two', 'three', 'four'].map((w) => `${w} ${body}`);
    known.add('old', page('a', texts[0]).original, page('a', texts[0]).elements);
    known.add('old', page('b', texts[1]).original, page('b', texts[1]).elements);
    known.add('new', page('c', texts[2]).original, page('c', texts[2]).elements);
    known.add('new', page('c', texts[2]).original, page('c', texts[2]).elements); // once per page
    expect(known.has('old', 'a')).toBe(true);
    known.add('new', page('d', texts[3]).original, page('d', texts[3]).elements);
    expect(known.has('old', 'a')).toBe(false);
    expect(known.has('new', 'c') && known.has('new', 'd')).toBe(true);
    known.forget('new');
    expect(known.has('new', 'c')).toBe(false);
  });
});
