import { applyUpdate } from './apply-update';

describe('applyUpdate (the embedded adapter’s update language)', () => {
  it('copies $set values as the JSON text of the document holds them: primitives as they are, the rest never shared', () => {
    const nested = { a: [1, { b: 2 }] };
    const when = new Date('2026-01-02T03:04:05.000Z');
    const out = applyUpdate({ _id: 'd' }, { $set: { s: 'text', n: 12.5, t: true, z: null, nested, when } }, false) as Record<
      string,
      unknown
    >;
    expect(out).toEqual({ _id: 'd', s: 'text', n: 12.5, t: true, z: null, nested: { a: [1, { b: 2 }] }, when: '2026-01-02T03:04:05.000Z' });
    expect(out.nested).not.toBe(nested);
    nested.a.push(3);
    expect(out.nested).toEqual({ a: [1, { b: 2 }] });
  });

  it('numbers JSON cannot hold come out as JSON reads them back: NaN and infinities null, -0 as 0', () => {
    const out = applyUpdate({ _id: 'd' }, { $set: { nan: NaN, inf: Infinity, minf: -Infinity, negzero: -0 } }, false) as Record<
      string,
      unknown
    >;
    expect(out).toEqual({ _id: 'd', nan: null, inf: null, minf: null, negzero: 0 });
    expect(Object.is(out.negzero, 0)).toBe(true);
  });

  it('changes the given document in place only when asked, and $inc, $unset and $setOnInsert as MongoDB does', () => {
    const doc = { _id: 'd', n: 1, gone: 'x', keep: { deep: 1 } };
    const copy = applyUpdate(doc, { $inc: { n: 2, 'keep.deep': 1 }, $unset: { gone: true } }, false);
    expect(doc).toEqual({ _id: 'd', n: 1, gone: 'x', keep: { deep: 1 } });
    expect(copy).toEqual({ _id: 'd', n: 3, keep: { deep: 2 } });
    const same = applyUpdate(doc, { $set: { n: 5 }, $setOnInsert: { created: 'now' } }, true, true);
    expect(same).toBe(doc);
    expect(doc).toMatchObject({ n: 5, created: 'now' });
  });
});
