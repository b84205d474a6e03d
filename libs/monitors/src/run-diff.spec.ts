import type { MonitorItemRecord, MonitorObservation } from './monitor.types';
import { compareRun, type RunComparisonInput } from './run-diff';

const NOW = '2026-11-26T10:00:00.000Z';
const plan = { list: 'products', fields: ['sku'] };
const page = (url: string, kind: MonitorObservation['kind'], products: Array<Record<string, unknown>> = []) => ({
  url,
  kind,
  data: kind === 'failed' || kind === 'gone' ? null : { products },
});

function run(items: MonitorItemRecord[], observations: RunComparisonInput['observations'], over: Partial<RunComparisonInput> = {}) {
  return compareRun({
    monitorId: 'm',
    plan,
    silentAdds: false,
    removeAfterMisses: 2,
    runCompleted: true,
    observations,
    items,
    now: NOW,
    ...over,
  });
}

/** Applies a comparison to the state, as the run's end does. */
function apply(items: MonitorItemRecord[], result: ReturnType<typeof compareRun>): MonitorItemRecord[] {
  const byId = new Map(items.map((i) => [i._id, i]));
  for (const s of result.save) byId.set(s._id, s);
  for (const r of result.remove) byId.delete(r);
  return [...byId.values()];
}

describe('compareRun', () => {
  const first = [
    page('http://s/1', 'extracted', [
      { sku: 'A', price: 10 },
      { sku: 'B', price: 20 },
    ]),
    page('http://s/2', 'extracted', [{ sku: 'C', price: 30 }]),
  ];

  it('reports everything as added on the first run, or nothing with a silent baseline', () => {
    const out = run([], first);
    expect(out.counts).toEqual({ unchanged: 0, changed: 0, added: 3, removed: 0, failed: 0 });
    expect(out.changes.map((c) => [c.kind, c.key])).toEqual([
      ['added', { sku: 'A' }],
      ['added', { sku: 'B' }],
      ['added', { sku: 'C' }],
    ]);
    expect(out.changes[0].fields).toEqual([
      { path: 'price', before: null, after: 10 },
      { path: 'sku', before: null, after: 'A' },
    ]);
    const silent = run([], first, { silentAdds: true });
    expect(silent.changes).toEqual([]);
    expect(silent.save).toHaveLength(3);
  });

  it('finds changed fields, ignores noise, and removes only after two misses in a row', () => {
    let state = apply([], run([], first));
    const second = run(state, [
      page('http://s/1', 'extracted', [
        { sku: 'A', price: '10.00' },
        { sku: 'B', price: 25 },
      ]),
      page('http://s/2', 'gone'),
    ]);
    expect(second.counts).toEqual({ unchanged: 1, changed: 1, added: 0, removed: 0, failed: 0 });
    expect(second.changes).toEqual([
      { url: 'http://s/1', kind: 'changed', key: { sku: 'B' }, fields: [{ path: 'price', before: 20, after: 25 }] },
    ]);
    state = apply(state, second);
    expect(state.find((i) => i.key.sku === 'C')!.misses).toBe(1);
    const third = run(state, [
      page('http://s/1', 'unchanged', [
        { sku: 'A', price: 10 },
        { sku: 'B', price: 25 },
      ]),
    ]);
    expect(third.changes).toEqual([
      {
        url: 'http://s/2',
        kind: 'removed',
        key: { sku: 'C' },
        fields: [
          { path: 'price', before: 30, after: null },
          { path: 'sku', before: 'C', after: null },
        ],
      },
    ]);
    expect(third.remove).toHaveLength(1);
  });

  it('a page that comes back after one miss is not removed, and its miss count starts again', () => {
    let state = apply([], run([], first));
    state = apply(state, run(state, [first[0], page('http://s/2', 'gone')]));
    const back = run(state, first);
    expect(back.changes).toEqual([]);
    state = apply(state, back);
    expect(state.every((i) => i.misses === 0)).toBe(true);
  });

  it('never removes what a failed page held, nor anything in a run that did not complete', () => {
    const state = apply(apply([], run([], first)), run(apply([], run([], first)), [first[0], page('http://s/2', 'gone')]));
    expect(run(state, [first[0], page('http://s/2', 'failed')])).toMatchObject({ changes: [], counts: { failed: 1, removed: 0 } });
    expect(run(state, [first[0]], { runCompleted: false }).changes).toEqual([]);
  });

  it('follows an item that moved to another page as the same key', () => {
    const state = apply([], run([], first));
    const moved = run(state, [
      page('http://s/1', 'extracted', [
        { sku: 'A', price: 10 },
        { sku: 'B', price: 20 },
        { sku: 'C', price: 30 },
      ]),
      page('http://s/2', 'extracted', []),
    ]);
    expect(moved.changes).toEqual([]);
    expect(moved.save.find((s) => s.key.sku === 'C')!.url).toBe('http://s/1');
  });

  it('writes again only the records that changed, moved or had a miss to clear', () => {
    let state = apply([], run([], first));
    const same = run(state, first);
    expect(same.counts.unchanged).toBe(3);
    expect(same.save).toEqual([]);
    state = apply(state, run(state, [first[0], page('http://s/2', 'gone')]));
    const back = run(state, [
      page('http://s/1', 'unchanged', [
        { sku: 'A', price: 10 },
        { sku: 'B', price: 21 },
      ]),
      first[1],
    ]);
    expect(back.save.map((s) => [s.key.sku, s.misses]).sort()).toEqual([
      ['B', 0],
      ['C', 0],
    ]);
  });

  it('removes at once, without waiting for misses, a record whose page left a list monitor’s list', () => {
    const state = apply([], run([], first));
    const out = run(state, [first[0]], { listed: new Set(['http://s/1']) });
    expect(out.changes.map((c) => [c.kind, c.key.sku])).toEqual([['removed', 'C']]);
    expect(out.remove).toHaveLength(1);
    // Still listed (its page 404ed): a miss; and a run that did not complete removes nothing.
    expect(run(state, [first[0], page('http://s/2', 'gone')], { listed: new Set(['http://s/1', 'http://s/2']) }).changes).toEqual([]);
    expect(run(state, [first[0]], { listed: new Set(['http://s/1']), runCompleted: false }).changes).toEqual([]);
  });
});
