import { splitByDuration } from './servers-sequencer';

describe('splitByDuration (the servers project split into shards)', () => {
  const durations = { 'a.e2e-spec.ts': 100, 'b.e2e-spec.ts': 60, 'c.e2e-spec.ts': 50, 'd.e2e-spec.ts': 10 };

  it('puts every suite in exactly one shard', () => {
    const paths = [...Object.keys(durations), 'new.e2e-spec.ts'];
    const shards = splitByDuration(paths, 2, durations);
    expect(shards.flatMap((s) => s.paths).sort()).toEqual([...paths].sort());
  });

  it('balances measured time, longest first onto the lightest shard', () => {
    const shards = splitByDuration(Object.keys(durations), 2, durations);
    expect(shards.map((s) => s.paths)).toEqual([
      ['a.e2e-spec.ts', 'd.e2e-spec.ts'],
      ['b.e2e-spec.ts', 'c.e2e-spec.ts'],
    ]);
    expect(shards.map((s) => s.seconds)).toEqual([110, 110]);
  });

  it('counts a suite it has no measure of as the median', () => {
    const shards = splitByDuration(['a.e2e-spec.ts', 'x.e2e-spec.ts', 'y.e2e-spec.ts'], 2, {
      'a.e2e-spec.ts': 100,
      'b.e2e-spec.ts': 40,
      'c.e2e-spec.ts': 50,
    });
    expect(shards.map((s) => s.paths)).toEqual([['a.e2e-spec.ts'], ['x.e2e-spec.ts', 'y.e2e-spec.ts']]);
    expect(shards[1].seconds).toBe(100);
  });

  it('gives one shard everything when there is one', () => {
    expect(splitByDuration(['b.e2e-spec.ts', 'a.e2e-spec.ts'], 1, durations)[0].paths).toEqual(['a.e2e-spec.ts', 'b.e2e-spec.ts']);
  });
});
